/* harness.c -- see harness.h. */
#include "harness.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int harness_failed_checks;
static int passed, failed, skipped, skip_current;
static const char *current;
static flow_device *opened;
static int open_tried;
static int listing, current_parts = 1;

void harness_check(int ok, const char *file, int line, const char *expr)
{
    if (ok)
        return;
    harness_failed_checks++;
    fprintf(stderr, "  FAIL %s (%s:%d): %s\n", current ? current : "?", file, line, expr);
}

void harness_check_near(double got, double want, double tol, const char *file, int line,
                        const char *expr)
{
    int ok = isfinite(got) && fabs(got - want) <= tol;
    if (!ok)
        fprintf(stderr, "  FAIL %s (%s:%d): %s: got %.9g, want %.9g +- %.3g\n",
                current ? current : "?", file, line, expr, got, want, tol);
    if (!ok)
        harness_failed_checks++;
}

void harness_skip(const char *why)
{
    skip_current = 1;
    printf("  skip %s: %s\n", current, why);
}

/* Line-buffered output, set before main prints anything, so that a log
 * read while a test runs (a sanitizer's, cut by a timeout) shows how far
 * it got. */
__attribute__((constructor)) static void line_buffered(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
}

static int selected(const char *name)
{
    const char *only = getenv("FLOW_TEST_ONLY");
    if (!only || !*only)
        return 1;
    return only[0] == '=' ? strcmp(name, only + 1) == 0 : strstr(name, only) != NULL;
}

void harness_run(const char *name, void (*fn)(void), int parts)
{
    listing = getenv("FLOW_TEST_LIST") != NULL;
    if (!selected(name))
        return;
    if (listing) {
        printf("%d %s\n", parts, name);
        return;
    }
    current = name;
    current_parts = parts;
    harness_failed_checks = 0;
    skip_current = 0;
    fn();
    if (harness_failed_checks)
        failed++, printf("  FAIL %s\n", name);
    else if (skip_current)
        skipped++;
    else
        passed++, printf("  ok   %s\n", name);
    fflush(stdout);
    current = NULL;
    current_parts = 1;
}

int harness_in_part(int i)
{
    const char *part = getenv("FLOW_TEST_PART");
    if (!part || !*part || current_parts <= 1)
        return 1;
    return i % current_parts == atoi(part) % current_parts;
}

static char scratch[256]; /* the scratch directory, once made */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int harness_report(void)
{
    flow_device_close(opened);
    if (listing)
        return 0;
    /* the scratch files go with a passing run; a failing one keeps them */
    if (scratch[0] && !failed)
        nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    else if (scratch[0])
        printf("  scratch files kept in %s\n", scratch);
    if (skipped)
        printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    else
        printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

flow_device *harness_device(void)
{
    if (!open_tried) {
        open_tried = 1;
        const char *spec = getenv("FLOW_DEVICE");
        flow_status s = flow_device_open(spec ? spec : "cpu", &opened);
        if (s != FLOW_OK)
            fprintf(stderr, "  cannot open device '%s': %s\n", spec ? spec : "cpu",
                    flow_last_error());
    }
    if (!opened)
        harness_check(0, __FILE__, __LINE__, "device opens");
    return opened;
}

int harness_params_apply(flow_params *p, const char *settings)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", settings ? settings : "");
    int ok = 1;
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (eq)
            *eq = '\0';
        if (!eq || flow_params_set(p, tok, eq + 1) != FLOW_OK) {
            fprintf(stderr, "    -> %s: %s\n", tok, eq ? flow_last_error() : "not key=value");
            ok = 0;
        }
    }
    return ok;
}

flow_params *harness_params(const char *method, const char *settings)
{
    flow_params *p = NULL;
    flow_status s = flow_params_create(method, &p);
    if (s != FLOW_OK) {
        fprintf(stderr, "    -> %s\n", flow_last_error());
        harness_check(0, __FILE__, __LINE__, "parameters of the method");
        return NULL;
    }
    harness_check(harness_params_apply(p, settings), __FILE__, __LINE__,
                  "harness_params setting");
    return p;
}

const char *harness_data_dir(void)
{
    const char *d = getenv("FLOW_DATA");
    if (!d)
        d = "../shared/data";
    struct stat st;
    return stat(d, &st) == 0 && S_ISDIR(st.st_mode) ? d : NULL;
}

const char *harness_need_data(void)
{
    const char *d = harness_data_dir();
    if (!d)
        harness_skip("no evaluation data (../shared/data or FLOW_DATA)");
    return d;
}

int harness_data_file(char *buf, size_t size, const char *rel)
{
    const char *dir = harness_data_dir();
    if (!dir)
        return 0;
    int n = snprintf(buf, size, "%s/%s", dir, rel);
    return n >= 0 && (size_t)n < size && harness_file_size(buf) >= 0;
}

int harness_read_pair(const char *dir, const char *f1, const char *f2, const char *gt,
                      const char *mask, int colour, harness_pair *out)
{
    memset(out, 0, sizeof *out);
    char path[1024];
    flow_image c1, c2;
    snprintf(path, sizeof path, "%s/%s", dir, f1);
    if (flow_image_read(path, &c1) != FLOW_OK)
        return 0;
    snprintf(path, sizeof path, "%s/%s", dir, f2);
    CHECK_OK(flow_image_read(path, &c2));
    snprintf(path, sizeof path, "%s/%s", dir, gt);
    CHECK_OK(flow_field_read(path, &out->gt));
    if (!colour && c1.channels == 3) {
        CHECK_OK(flow_image_to_gray(&c1, &out->a));
        CHECK_OK(flow_image_to_gray(&c2, &out->b));
        flow_image_free(&c1);
        flow_image_free(&c2);
    } else {
        out->a = c1;
        out->b = c2;
    }
    if (mask) {
        snprintf(path, sizeof path, "%s/%s", dir, mask);
        CHECK_OK(flow_image_read(path, &out->mask));
        out->has_mask = 1;
    }
    return 1;
}

void harness_pair_free(harness_pair *p)
{
    flow_image_free(&p->a);
    flow_image_free(&p->b);
    flow_field_free(&p->gt);
    if (p->has_mask)
        flow_image_free(&p->mask);
}

const char *harness_tmpdir(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/flowtest.XXXXXX", base ? base : "/tmp");
        if (mkdtemp(dir))
            snprintf(scratch, sizeof scratch, "%s", dir);
        else
            snprintf(dir, sizeof dir, "/tmp");
    }
    return dir;
}

const char *harness_path(const char *name)
{
    static char buf[8][1024];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", harness_tmpdir(), name);
    return p;
}

void harness_write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(data, 1, n, f) == n);
    fclose(f);
}

unsigned char *harness_read_file(const char *path, size_t *n)
{
    *n = 0;
    const long len = harness_file_size(path);
    FILE *f = len >= 0 ? fopen(path, "rb") : NULL;
    if (!f)
        return NULL;
    unsigned char *buf = malloc((size_t)len + 1);
    if (buf && fread(buf, 1, (size_t)len, f) == (size_t)len) {
        buf[len] = '\0';
        *n = (size_t)len;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

long harness_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int harness_count_files(const char *part)
{
    DIR *d = opendir(harness_tmpdir());
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, part) != NULL;
    if (d)
        closedir(d);
    return n;
}

double harness_synth_aee(const char *method, const flow_synth *s, int w, int h, int channels,
                         const char *settings, int margin, flow_field *keep)
{
    flow_device *d = harness_device();
    flow_image a, b;
    flow_field gt, out;
    CHECK_OK(flow_synth_frame(s, w, h, channels, 0, &a));
    CHECK_OK(flow_synth_frame(s, w, h, channels, 1, &b));
    CHECK_OK(flow_synth_flow(s, w, h, 0, &gt));
    CHECK_OK(flow_field_alloc(&out, w, h));
    flow_params *p = harness_params(method, settings);
    flow_context *ctx = NULL;
    double aee = INFINITY;
    if (d && p && flow_context_create(d, w, h, channels, p, &ctx) == FLOW_OK
        && flow_context_compute(ctx, &a, &b, &out) == FLOW_OK) {
        double sum = 0;
        long n = 0;
        for (int y = margin; y < h - margin; y++)
            for (int x = margin; x < w - margin; x++, n++)
                sum += hypot(out.u[y * w + x] - gt.u[y * w + x], out.v[y * w + x] - gt.v[y * w + x]);
        aee = sum / (double)n;
    } else {
        fprintf(stderr, "    -> %s %s: %s\n", method, settings ? settings : "",
                flow_last_error());
    }
    if (keep)
        *keep = out;
    else
        flow_field_free(&out);
    flow_context_destroy(ctx);
    flow_params_destroy(p);
    flow_image_free(&a), flow_image_free(&b);
    flow_field_free(&gt);
    return aee;
}

char *harness_env_save(const char *name)
{
    const char *v = getenv(name);
    return v ? strdup(v) : NULL;
}

void harness_env_restore(const char *name, char *saved)
{
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
    free(saved);
}

double harness_uniform(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) * (1.0 / 16777216.0);
}

void harness_synth_pair(const flow_synth *s, int w, int h, harness_pair *p)
{
    memset(p, 0, sizeof *p);
    CHECK_OK(flow_synth_frame(s, w, h, 1, 0, &p->a));
    CHECK_OK(flow_synth_frame(s, w, h, 1, 1, &p->b));
    CHECK_OK(flow_synth_flow(s, w, h, 0, &p->gt));
}
