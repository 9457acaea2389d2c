/* framedir.c -- the frames of a directory (see framedir.h): list, group by
 * name pattern, keep the most common pattern, read the sizes, keep the
 * most common size, say what was left out. */
#include "framedir.h"
#include "cli.h"

#include "flow/flow.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The largest number taken from a frame's name (as --first allows). */
#define FRAMEDIR_NUMBER_MAX 100000000L

/* Why a file is not a frame. */
typedef enum why { FRAME, NOT_IMAGE, OTHER_NAME, OTHER_SIZE } why;

typedef struct entry {
    char *name, *path;
    char *pattern; /* the name with each run of digits as '#' */
    int width, height, sized;
    why why;
} entry;

/* Natural order: runs of digits compare by value, so f2 < f10. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)a[la]))
                la++;
            while (isdigit((unsigned char)b[lb]))
                lb++;
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c)
                return c;
            a += la, b += lb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++, b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int by_name(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    const int c = natural_cmp(x->name, y->name);
    return c ? c : strcmp(x->name, y->name);
}

static int is_image_name(const char *name)
{
    static const char *const ext[] = {".png", ".pgm", ".ppm", ".pnm", ".jpg", ".jpeg",
                                      ".tif", ".tiff", ".bmp", ".webp", NULL};
    for (int i = 0; ext[i]; i++)
        if (cli_has_suffix(name, ext[i]))
            return 1;
    return 0;
}

/* The name with each run of digits as one '#'; a name without digits is
 * "*" and its extension, so that such names share one pattern. */
static char *pattern_of(const char *name)
{
    char *p = malloc(strlen(name) + 2);
    if (!p)
        return NULL;
    size_t n = 0;
    int digits = 0;
    for (const char *c = name; *c; c++) {
        if (!isdigit((unsigned char)*c))
            p[n++] = *c;
        else if (c == name || !isdigit((unsigned char)c[-1]))
            p[n++] = '#', digits = 1;
    }
    p[n] = '\0';
    if (!digits) {
        const char *dot = strrchr(name, '.');
        snprintf(p, strlen(name) + 2, "*%s", dot ? dot : "");
    }
    return p;
}

static void free_entries(entry *e, long n)
{
    for (long i = 0; i < n; i++) {
        free(e[i].name);
        free(e[i].path);
        free(e[i].pattern);
    }
    free(e);
}

/* The files of dir (hidden ones and subdirectories passed over), each an
 * image of its pattern or NOT_IMAGE. */
static int read_entries(const char *dir, entry **out, long *count)
{
    *out = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("%s: cannot read the directory: %s", dir, strerror(errno));
        return CLI_EXIT_IO;
    }
    entry *e = NULL;
    long n = 0, cap = 0;
    int rc = CLI_EXIT_OK;
    const char *sep = dir[strlen(dir) - 1] == '/' ? "" : "/";
    struct dirent *de;
    while ((de = readdir(d))) {
        char path[4200];
        struct stat st;
        if (de->d_name[0] == '.'
            || snprintf(path, sizeof path, "%s%s%s", dir, sep, de->d_name) >= (int)sizeof path
            || stat(path, &st) != 0 || S_ISDIR(st.st_mode))
            continue;
        if (n == cap) {
            entry *grown = realloc(e, sizeof *e * (size_t)(cap ? 2 * cap : 64));
            if (!grown) {
                rc = CLI_EXIT_COMPUTE;
                break;
            }
            e = grown, cap = cap ? 2 * cap : 64;
        }
        entry *x = &e[n++];
        memset(x, 0, sizeof *x);
        const int image = S_ISREG(st.st_mode) && is_image_name(de->d_name);
        x->why = image ? FRAME : NOT_IMAGE;
        x->path = strdup(path);
        x->name = strdup(de->d_name);
        x->pattern = image ? pattern_of(de->d_name) : NULL;
        if (!x->path || !x->name || (image && !x->pattern)) {
            rc = CLI_EXIT_COMPUTE;
            break;
        }
    }
    closedir(d);
    if (rc != CLI_EXIT_OK) {
        cli_error("out of memory");
        free_entries(e, n);
        return rc;
    }
    if (n > 1)
        qsort(e, (size_t)n, sizeof *e, by_name);
    *out = e;
    *count = n;
    return CLI_EXIT_OK;
}

/* How many entries still frames have pattern p, or (p NULL) size w x h. */
static long count_like(const entry *e, long n, const char *p, int w, int h)
{
    long k = 0;
    for (long i = 0; i < n; i++)
        if (e[i].why == FRAME && (p ? strcmp(e[i].pattern, p) == 0
                                    : e[i].sized && e[i].width == w && e[i].height == h))
            k++;
    return k;
}

/* Keeps the images of the most common pattern (*pattern: it); the others
 * become OTHER_NAME.  An input error when two patterns tie. */
static int keep_pattern(const char *dir, entry *e, long n, const char **pattern)
{
    const char *best = NULL, *tie = NULL;
    long most = 0;
    for (long i = 0; i < n; i++) {
        if (e[i].why != FRAME)
            continue;
        const long k = count_like(e, n, e[i].pattern, 0, 0);
        if (k > most)
            most = k, best = e[i].pattern, tie = NULL;
        else if (k == most && strcmp(e[i].pattern, best) != 0 && !tie)
            tie = e[i].pattern;
    }
    *pattern = best;
    if (tie && most > 1) {
        cli_error("%s: which files are the frames? %ld images are named like %s and %ld like %s "
                  "(# a number): give the frames as a pattern (such as '%s/frame%%04d.png') or "
                  "a list",
                  dir, most, best, most, tie, dir);
        return CLI_EXIT_IO;
    }
    for (long i = 0; i < n; i++)
        if (e[i].why == FRAME && strcmp(e[i].pattern, best) != 0)
            e[i].why = OTHER_NAME;
    return CLI_EXIT_OK;
}

/* Reads the frames' sizes and keeps the most common (*w x *h); the others
 * become OTHER_SIZE.  A frame whose size cannot be read stays.  An input
 * error when two sizes tie. */
static int keep_size(const char *dir, entry *e, long n, int *w, int *h)
{
    for (long i = 0; i < n; i++)
        if (e[i].why == FRAME)
            e[i].sized = flow_image_probe(e[i].path, &e[i].width, &e[i].height) == FLOW_OK;
    long most = 0;
    int tie = 0, tw = 0, th = 0;
    *w = *h = 0;
    for (long i = 0; i < n; i++) {
        if (e[i].why != FRAME || !e[i].sized)
            continue;
        const long k = count_like(e, n, NULL, e[i].width, e[i].height);
        if (k > most)
            most = k, *w = e[i].width, *h = e[i].height, tie = 0;
        else if (k == most && (e[i].width != *w || e[i].height != *h) && !tie)
            tie = 1, tw = e[i].width, th = e[i].height;
    }
    if (tie) {
        cli_error("%s: which images are the frames? %ld image%s of %dx%d and as many of "
                  "%dx%d: give the frames as a pattern or a list",
                  dir, most, most == 1 ? "" : "s", *w, *h, tw, th);
        return CLI_EXIT_IO;
    }
    for (long i = 0; i < n; i++)
        if (e[i].why == FRAME && e[i].sized && (e[i].width != *w || e[i].height != *h))
            e[i].why = OTHER_SIZE;
    return CLI_EXIT_OK;
}

/* The frames' numbers, the one run of digits in each name, into *out
 * (malloc'd), when the pattern has one '#' and the values increase; else
 * *out is NULL (numbered by position). */
static int frame_numbers(const entry *e, long n, long frames, const char *pattern, long **out)
{
    *out = NULL;
    const char *hash = strchr(pattern, '#');
    if (!hash || strchr(hash + 1, '#'))
        return CLI_EXIT_OK;
    long *v = malloc(sizeof *v * (size_t)frames);
    if (!v) {
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    long k = 0;
    for (long i = 0; i < n; i++) {
        if (e[i].why != FRAME)
            continue;
        const char *d = e[i].name;
        while (!isdigit((unsigned char)*d))
            d++;
        errno = 0;
        v[k] = strtol(d, NULL, 10);
        if (errno || v[k] > FRAMEDIR_NUMBER_MAX || (k > 0 && v[k] <= v[k - 1])) {
            free(v);
            return CLI_EXIT_OK;
        }
        k++;
    }
    *out = v;
    return CLI_EXIT_OK;
}

/* One line: how many frames, each file left out with why (the first few;
 * then how many more), and whether they are numbered by position. */
static void report(const char *dir, const entry *e, long n, long frames, const char *pattern,
                   int w, int h, int by_position)
{
    enum { SHOWN = 6 };
    char line[2048];
    size_t used = 0;
    long left = 0;
    for (long i = 0; i < n; i++) {
        if (e[i].why == FRAME)
            continue;
        if (left++ >= SHOWN || used >= sizeof line)
            continue;
        char reason[64];
        if (e[i].why == OTHER_SIZE)
            snprintf(reason, sizeof reason, "%dx%d", e[i].width, e[i].height);
        else
            snprintf(reason, sizeof reason, "%s",
                     e[i].why == NOT_IMAGE ? "not an image" : "another name");
        used += (size_t)snprintf(line + used, sizeof line - used, "%s%s (%s)",
                                 left > 1 ? ", " : "", e[i].name, reason);
    }
    if (!left && !by_position)
        return;
    char more[64] = "";
    if (left > SHOWN)
        snprintf(more, sizeof more, " and %ld more", left - SHOWN);
    char size[64] = "";
    if (w > 0)
        snprintf(size, sizeof size, " of %dx%d", w, h);
    char left_out[2200] = "";
    if (left)
        snprintf(left_out, sizeof left_out, "; left out %ld file%s: %s%s", left,
                 left == 1 ? "" : "s", line, more);
    cli_info("%s: %ld frames named like %s%s%s%s", dir, frames, pattern, size,
             by_position ? ", numbered by position from 0 (their names have not one number each)"
                         : "",
             left_out);
}

int framedir_list(const char *dir, int quiet, char ***paths, long *count, long **numbers)
{
    *paths = NULL;
    *count = 0;
    *numbers = NULL;
    entry *e;
    long n;
    int rc = read_entries(dir, &e, &n);
    if (rc != CLI_EXIT_OK)
        return rc;
    const char *pattern = NULL;
    int w = 0, h = 0;
    rc = keep_pattern(dir, e, n, &pattern);
    if (rc == CLI_EXIT_OK && pattern)
        rc = keep_size(dir, e, n, &w, &h);
    long frames = 0;
    for (long i = 0; i < n; i++)
        frames += e[i].why == FRAME;
    if (rc == CLI_EXIT_OK && frames < 2) {
        if (frames == 0)
            cli_error("%s: no image files (need at least 2 frames: .png, .pgm, .ppm, .jpg, ...)",
                      dir);
        else
            cli_error("%s: only one image file named like the others or of their size (need "
                      "at least 2 frames)",
                      dir);
        rc = CLI_EXIT_IO;
    }
    char **out = rc == CLI_EXIT_OK ? malloc(sizeof *out * (size_t)frames) : NULL;
    if (rc == CLI_EXIT_OK && !out) {
        cli_error("out of memory");
        rc = CLI_EXIT_COMPUTE;
    }
    if (rc == CLI_EXIT_OK)
        rc = frame_numbers(e, n, frames, pattern, numbers);
    if (rc == CLI_EXIT_OK) {
        if (!quiet)
            report(dir, e, n, frames, pattern, w, h, *numbers == NULL);
        for (long i = 0, k = 0; i < n; i++)
            if (e[i].why == FRAME)
                out[k++] = e[i].path, e[i].path = NULL;
        *paths = out;
        *count = frames;
    } else
        free(out);
    free_entries(e, n);
    return rc;
}
