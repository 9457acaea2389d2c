/* atomic_file.c -- writing a file so that it appears whole or not at all:
 * the bytes go to a temporary name beside the target (same directory, same
 * extension, so format-by-extension writers still work), which is renamed
 * over the target only once everything was written.  A target that exists
 * and is not a regular file (a device, a pipe, a symbolic link) is written
 * directly. */
#include "base/fail.h"
#include "flow/atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

flow_status flow_atomic_tmpname(const char *path, char *tmp, size_t size)
{
    const char *slash = strrchr(path, '/');
    const int dirlen = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    if (!*base)
        return flow_fail(FLOW_ERR_IO, "%s: is a directory name, not a file name", path);
    int n = snprintf(tmp, size, "%.*s.tmp-%ld-%s", dirlen, path, (long)getpid(), base);
    if (n < 0 || (size_t)n >= size)
        return flow_fail(FLOW_ERR_IO, "%s: path too long", path);
    return FLOW_OK;
}

flow_status flow_atomic_open(flow_atomic *a, const char *path)
{
    memset(a, 0, sizeof *a);
    a->path = path;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return flow_fail(FLOW_ERR_IO, "%s: is a directory", path);
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device, a pipe or a symbolic link (/dev/stdout, a FIFO): written
         * through, never replaced by a rename (lstat: /dev/stdout redirected
         * to a file is a link to a regular file) */
        a->f = fopen(path, "wb");
        if (!a->f)
            return flow_fail(FLOW_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        return FLOW_OK;
    }
    FLOW_TRY(flow_atomic_tmpname(path, a->tmp, sizeof a->tmp));
    a->f = fopen(a->tmp, "wb");
    if (!a->f)
        return flow_fail(FLOW_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return FLOW_OK;
}

flow_status flow_atomic_commit(flow_atomic *a)
{
    int failed = ferror(a->f);
    failed |= fclose(a->f) != 0;
    a->f = NULL;
    if (failed) {
        int e = errno;
        if (a->tmp[0])
            remove(a->tmp);
        return flow_fail(FLOW_ERR_IO, "%s: write failed: %s", a->path, strerror(e));
    }
    return a->tmp[0] ? flow_atomic_rename(a->tmp, a->path) : FLOW_OK;
}

flow_status flow_atomic_rename(const char *tmp, const char *path)
{
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return flow_fail(FLOW_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    }
    return FLOW_OK;
}

void flow_atomic_abort(flow_atomic *a)
{
    if (a->f)
        fclose(a->f);
    a->f = NULL;
    if (a->tmp[0])
        remove(a->tmp);
}
