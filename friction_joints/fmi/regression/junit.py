"""The outcomes of a regression run as JUnit XML (the Ant/Jenkins format CI servers read)."""

from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

from .check import Outcome

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")  # characters XML 1.0 forbids


def _text(s: str) -> str:
    """s with the characters that XML 1.0 cannot hold (an FMU's log may have them) replaced by '?'."""
    return _NOT_XML.sub("?", s)


def testcase(outcome: Outcome) -> ET.Element:
    """<testcase classname="<FMU file stem>" name="<case>" time="s">: the report in its <failure> or <error>,
    or in <system-out> if it passed."""
    seconds = outcome.verdict.seconds if outcome.verdict else 0.0
    case = ET.Element("testcase", classname=Path(outcome.fmu).stem, name=outcome.case or Path(outcome.fmu).stem,
                      time=f"{seconds:.3f}")
    if outcome.status:
        kind = "error" if outcome.status == 2 else "failure"
        element = ET.SubElement(case, kind, message=_text(outcome.headline()),
                                type="CheckError" if outcome.status == 2 else "FMURegressionFailure")
        element.text = _text(outcome.report())
    else:
        ET.SubElement(case, "system-out").text = _text(outcome.report())
    return case


def write_junit(outcomes: list[Outcome], path, suite: str = "FMU regression") -> Path:
    """Write the outcomes to path as one <testsuite> named suite in <testsuites>, one <testcase> each."""
    counts = {"tests": len(outcomes), "failures": sum(o.status == 1 for o in outcomes),
              "errors": sum(o.status == 2 for o in outcomes), "skipped": 0}
    seconds = f"{sum(o.verdict.seconds for o in outcomes if o.verdict):.3f}"
    root = ET.Element("testsuites", name=suite, time=seconds, **{k: str(v) for k, v in counts.items()})
    element = ET.SubElement(root, "testsuite", name=suite, time=seconds,
                            timestamp=datetime.now().isoformat(timespec="seconds"), hostname=socket.gethostname(),
                            **{k: str(v) for k, v in counts.items()})
    element.extend(testcase(o) for o in outcomes)
    ET.indent(root)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="UTF-8", xml_declaration=True)
    return path
