/* common.c -- scratch files, property checks and refusal checks of
 * the fuzz harnesses (common.h). */
#include "common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char scratch[256];
static char path_buf[512];

/* Removes the scratch directory and what the harness left in it. */
static void remove_scratch(void)
{
    DIR *d = opendir(scratch);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                snprintf(path_buf, sizeof path_buf, "%s/%s", scratch, e->d_name);
                unlink(path_buf);
            }
        closedir(d);
    }
    rmdir(scratch);
}

const char *fuzz_path(const char *name)
{
    if (!scratch[0]) {
        /* TMPDIR, else memory (/dev/shm) where there is one: the writers
         * rename over the file of the last input, and ext4 writes a file
         * renamed over another to disk at once, which made runs 10 times
         * slower */
        const char *tmp = getenv("TMPDIR");
        struct stat st;
        if (!tmp || !*tmp)
            tmp = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0
                      ? "/dev/shm"
                      : "/tmp";
        snprintf(scratch, sizeof scratch, "%s/flowfuzz.XXXXXX", tmp);
        if (!mkdtemp(scratch)) {
            perror("fuzz: cannot make a scratch directory");
            abort();
        }
        atexit(remove_scratch);
    }
    snprintf(path_buf, sizeof path_buf, "%s/%s", scratch, name);
    return path_buf;
}

const char *fuzz_write(const char *name, const uint8_t *data, size_t n)
{
    const char *path = fuzz_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        abort();
    }
    return path;
}

uint8_t *fuzz_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)len + 1)) && fread(buf, 1, (size_t)len, f) == (size_t)len) {
        fclose(f);
        *n = (size_t)len;
        return buf;
    }
    perror(path);
    abort();
}

void fuzz_require(int ok, const char *what, const char *file, int line)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz: property failed at %s:%d: %s\n  last libflow error: %s\n", file, line,
            what, flow_last_error());
    abort();
}

void fuzz_refused(flow_status s, const char *path, const flow_status *allowed)
{
    int listed = 0;
    for (const flow_status *a = allowed; *a != FLOW_OK; a++)
        listed |= s == *a;
    if (!listed)
        fprintf(stderr, "fuzz: unexpected status %s (%s)\n", flow_status_str(s),
                flow_last_error());
    FUZZ_REQUIRE(listed);
    FUZZ_REQUIRE(strstr(flow_last_error(), path) != NULL);
}

int fuzz_same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}
