"""Reading valgrind's output in the tests of the FMUs' hosts."""

# valgrind reports a few invalid reads inside glibc's dynamic linker (strncmp in is_dst, while
# dlopen expands an $ORIGIN rpath) in any process that loads numpy or scipy: not the FMU's
_DYNAMIC_LINKER_FALSE_POSITIVE = "is_dst (dl-load.c"


def valgrind_errors(stderr: str) -> list[str]:
    """The error reports of valgrind's output, without the dynamic linker's false positives."""
    blocks, current = [], None
    for line in stderr.splitlines():
        body = line.split("== ", 1)[-1] if line.startswith("==") else None
        if body is None:
            continue
        if body and not body.startswith(" ") and any(body.startswith(w) for w in
                                                     ("Invalid", "Conditional", "Use of", "Syscall", "Mismatched")):
            current = [body]
            blocks.append(current)
        elif body.startswith(" ") and current is not None:
            current.append(body)
        else:
            current = None
    return ["\n".join(b) for b in blocks if not any(_DYNAMIC_LINKER_FALSE_POSITIVE in line for line in b)]
