/* The resources folder a host names at instantiation, checked before pythonfmu sees it.
 *
 * pythonfmu and pythonfmu3 take their fmuResourceLocation / resourcePath as a path after deleting the
 * first "file://" and turning every "%20" into a space; a folder that is not the FMU's resources
 * folder then crashes (FMI 2.0: a NULL Python class is called) or hangs (FMI 3.0) the host. The loader
 * therefore decodes and checks the folder first and gives pythonfmu a resolved path it reads as it is.
 */
#define _GNU_SOURCE

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loader_python.h"

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int resource_folder(const char *path, char *folder, size_t size, char *err, size_t err_size)
{
    char marker[PATH_MAX + 32];
    struct stat st;
    if (!path || !*path) {
        snprintf(err, err_size, "the resources folder is %s: this FMU needs the path of its resources folder",
                 path ? "an empty string" : "NULL");
        return -1;
    }
    if (size < PATH_MAX || !realpath(path, folder) || stat(folder, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "the resources folder %s does not exist or is not a folder", path);
        return -1;
    }
    snprintf(marker, sizeof marker, "%s/slavemodule.txt", folder);
    if (stat(marker, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, err_size, "%s is not this FMU's resources folder: it has no slavemodule.txt", folder);
        return -1;
    }
    if (strstr(folder, "%20")) {
        snprintf(err, err_size, "the path of the resources folder %s contains \"%%20\", which pythonfmu reads as a "
                 "space: extract the FMU into another folder", folder);
        return -1;
    }
    return 0;
}

int resource_folder_of_uri(const char *uri, char *folder, size_t size, char *err, size_t err_size)
{
    char path[PATH_MAX];
    const char *p;
    size_t n = 0;
    if (!uri || !*uri) {
        snprintf(err, err_size, "fmuResourceLocation is %s: this FMU needs the URI of its resources folder",
                 uri ? "an empty string" : "NULL");
        return -1;
    }
    /* RFC 8089: file:/path, file:///path (empty authority) or file://localhost/path */
    if (strncmp(uri, "file:", 5) != 0) {
        snprintf(err, err_size, "fmuResourceLocation %s is not a file URI", uri);
        return -1;
    }
    p = uri + 5;
    if (strncmp(p, "//", 2) == 0) {
        p += 2;
        if (strncmp(p, "localhost/", 10) == 0)
            p += 9;
        else if (*p != '/') {
            snprintf(err, err_size, "fmuResourceLocation %s names another host: only local files can be loaded", uri);
            return -1;
        }
    }
    if (*p != '/') {
        snprintf(err, err_size, "fmuResourceLocation %s has no absolute path", uri);
        return -1;
    }
    for (; *p && *p != '?' && *p != '#'; p++) {
        char c = *p;
        if (c == '%') {
            int high = hex_digit(p[1]), low = high < 0 ? -1 : hex_digit(p[2]);
            if (low < 0 || (high == 0 && low == 0)) {
                snprintf(err, err_size, "fmuResourceLocation %s has an invalid percent-encoding at \"%.3s\"", uri, p);
                return -1;
            }
            c = (char)(high * 16 + low);
            p += 2;
        }
        if (n + 1 >= sizeof path) {
            snprintf(err, err_size, "fmuResourceLocation %.256s... is too long", uri);
            return -1;
        }
        path[n++] = c;
    }
    path[n] = '\0';
    return resource_folder(path, folder, size, err, err_size);
}
