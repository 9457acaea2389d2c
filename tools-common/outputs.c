/* outputs.c -- groups of outputs that appear all or none (see outputs.h). */
#include "outputs.h"
#include "cli.h"

#include "flow/atomic_file.h"
#include "flow/flow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct output {
    char *target;
    char *tmp; /* NULL: written in place */
} output;

struct output_group {
    output *out;
    int n, cap;
    char **dirs;
    int ndirs, dcap;
};

int output_group_create(output_group **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out) {
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    return CLI_EXIT_OK;
}

/* Removes the temporaries, then the directories (the newest first: a
 * pair's directory may hold another's). */
static void discard(output_group *g)
{
    for (int i = 0; i < g->n; i++)
        if (g->out[i].tmp)
            remove(g->out[i].tmp);
    for (int i = g->ndirs - 1; i >= 0; i--)
        rmdir(g->dirs[i]);
}

static void clear(output_group *g)
{
    for (int i = 0; i < g->n; i++) {
        free(g->out[i].target);
        free(g->out[i].tmp);
    }
    for (int i = 0; i < g->ndirs; i++)
        free(g->dirs[i]);
    g->n = g->ndirs = 0;
}

void output_group_destroy(output_group *g)
{
    if (!g)
        return;
    discard(g);
    clear(g);
    free(g->out);
    free(g->dirs);
    free(g);
}

/* Room for one more output and one more directory. */
static int grow(output_group *g)
{
    if (g->n == g->cap) {
        const int cap = g->cap ? 2 * g->cap : 8;
        output *o = realloc(g->out, sizeof *o * (size_t)cap);
        if (!o)
            return -1;
        g->out = o, g->cap = cap;
    }
    if (g->ndirs == g->dcap) {
        const int cap = g->dcap ? 2 * g->dcap : 4;
        char **d = realloc(g->dirs, sizeof *d * (size_t)cap);
        if (!d)
            return -1;
        g->dirs = d, g->dcap = cap;
    }
    return 0;
}

int output_group_add(output_group *g, const char *target, char *write_to, size_t size)
{
    struct stat st;
    /* a device, a pipe or a link is written through, never replaced */
    const int in_place = lstat(target, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
    char tmp[OUTPUT_NAME_MAX];
    if (!in_place && flow_atomic_tmpname(target, tmp, sizeof tmp) != FLOW_OK)
        return cli_report_status(FLOW_ERR_IO);
    const char *name = in_place ? target : tmp;
    if (strlen(name) >= size) {
        cli_error("%s: path too long", target);
        return CLI_EXIT_IO;
    }
    output o = {strdup(target), in_place ? NULL : strdup(tmp)};
    if (grow(g) != 0 || !o.target || (!in_place && !o.tmp)) {
        free(o.target);
        free(o.tmp);
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    g->out[g->n++] = o;
    snprintf(write_to, size, "%s", name);
    return CLI_EXIT_OK;
}

int output_group_add_dir(output_group *g, const char *dir)
{
    char *d = strdup(dir);
    if (!d || grow(g) != 0) {
        free(d);
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    g->dirs[g->ndirs++] = d;
    return CLI_EXIT_OK;
}

int output_group_adopt(output_group *g, output_group *from)
{
    if (!from)
        return CLI_EXIT_OK;
    int rc = CLI_EXIT_OK, i = 0, k = 0; /* in order: directories are removed newest first */
    while (rc == CLI_EXIT_OK && (i < from->n || k < from->ndirs)) {
        if (grow(g) != 0) {
            cli_error("out of memory");
            rc = CLI_EXIT_COMPUTE;
        } else if (i < from->n) {
            g->out[g->n++] = from->out[i++];
        } else {
            g->dirs[g->ndirs++] = from->dirs[k++];
        }
    }
    /* what was not moved stays from's, removed with it */
    memmove(from->out, from->out + i, sizeof *from->out * (size_t)(from->n - i));
    memmove(from->dirs, from->dirs + k, sizeof *from->dirs * (size_t)(from->ndirs - k));
    from->n -= i, from->ndirs -= k;
    output_group_destroy(from);
    return rc;
}

int output_group_commit(output_group *g)
{
    /* what can be found before any rename is found first */
    for (int i = 0; i < g->n; i++) {
        struct stat st;
        if (g->out[i].tmp && stat(g->out[i].target, &st) == 0 && S_ISDIR(st.st_mode)) {
            cli_error("%s: cannot write: is a directory", g->out[i].target);
            discard(g);
            clear(g);
            return CLI_EXIT_IO;
        }
    }
    for (int i = 0; i < g->n; i++) {
        if (!g->out[i].tmp || rename(g->out[i].tmp, g->out[i].target) == 0)
            continue;
        cli_error("%s: cannot create: %s", g->out[i].target, strerror(errno));
        for (int k = 0; k < i; k++) /* those renamed already go again */
            if (g->out[k].tmp)
                remove(g->out[k].target);
        discard(g);
        clear(g);
        return CLI_EXIT_IO;
    }
    clear(g); /* committed: nothing left to remove */
    return CLI_EXIT_OK;
}

int output_report(flow_status s, const char *written, const char *target)
{
    const char *detail = *flow_last_error() ? flow_last_error() : flow_status_str(s);
    char text[2 * OUTPUT_NAME_MAX] = "";
    const size_t len = strlen(written);
    size_t n = 0;
    for (const char *p = detail; *p && n < sizeof text;) {
        const char *hit = len ? strstr(p, written) : NULL;
        const size_t keep = hit ? (size_t)(hit - p) : strlen(p);
        n += (size_t)snprintf(text + n, sizeof text - n, "%.*s%s", (int)keep, p,
                              hit ? target : "");
        p += keep + (hit ? len : 0);
    }
    cli_error("%s", text);
    return cli_exit_for_status(s);
}

int output_check_target(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("%s: cannot write: is a directory", path);
        return CLI_EXIT_IO;
    }
    const char *slash = strrchr(path, '/');
    char dir[OUTPUT_NAME_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (stat(dir, &st) != 0) {
        cli_error("%s: cannot write: directory %s: %s", path, dir, strerror(errno));
        return CLI_EXIT_IO;
    }
    if (!S_ISDIR(st.st_mode)) {
        cli_error("%s: cannot write: %s is not a directory", path, dir);
        return CLI_EXIT_IO;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cli_error("%s: cannot write: directory %s: %s", path, dir, strerror(errno));
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}
