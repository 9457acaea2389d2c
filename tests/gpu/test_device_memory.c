/* test_device_memory.c -- running out of GPU memory.  With the GPU's memory
 * taken by planes of 16384x16384 (1 GiB each) held by this process, all
 * but about 2 GiB of it:
 *   - a context for 16384x16384 frames fails with FLOW_ERR_NOMEM, and the
 *     message names the frames' size, the method and the device;
 *   - what the failed context had allocated is given back (the planes
 *     taken before it fit again afterwards);
 *   - flow-compute on a 16384x16384 pair, run meanwhile, exits 3 with a
 *     message naming the size and the device, and writes no flow file.
 * Skipped without a CUDA device; runs under `make test-gpu`. */
#include "harness.h"
#include "device/device.h"
#include "flow/flow.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIDE 16384
#define HELD_MAX 256 /* 256 GiB: more than any GPU we run on */

static flow_plane held[HELD_MAX];
static int nheld;

/* Takes 1 GiB planes until the device refuses one, then gives two back. */
static int take_memory(flow_device *d)
{
    flow_status s = FLOW_OK;
    while (nheld < HELD_MAX && (s = flow_plane_alloc(d, &held[nheld], SIDE, SIDE)) == FLOW_OK)
        nheld++;
    CHECK(s == FLOW_ERR_NOMEM);
    CHECK(strstr(flow_last_error(), "out of device memory on ") != NULL);
    CHECK(strstr(flow_last_error(), "a 16384x16384 plane needs 1024.0 MiB") != NULL);
    printf("  %d GiB taken; the refusal: %s\n", nheld, flow_last_error());
    for (int k = 0; k < 2 && nheld > 0; k++)
        flow_plane_free(d, &held[--nheld]);
    return nheld > 0;
}

static void give_memory_back(flow_device *d)
{
    while (nheld > 0)
        flow_plane_free(d, &held[--nheld]);
}

static void test_context_out_of_memory(void)
{
    flow_device *d = harness_device();
    if (!d || strcmp(flow_device_kind(d), "cuda") != 0) {
        harness_skip("needs a CUDA device (FLOW_DEVICE=cuda)");
        return;
    }
    if (!take_memory(d))
        return;
    flow_params *p = harness_params("robust", NULL);
    flow_context *ctx = NULL;
    const flow_status s = flow_context_create(d, SIDE, SIDE, 1, p, &ctx);
    CHECK(s == FLOW_ERR_NOMEM && ctx == NULL);
    const char *why = flow_last_error();
    printf("  context: %s\n", why);
    CHECK(strstr(why, "16384x16384 frames, method robust: out of device memory on ") != NULL);
    CHECK(strstr(why, flow_device_name(d)) != NULL);
    /* the failed context kept nothing: the two planes given back fit again */
    flow_status again = FLOW_OK;
    for (int k = 0; k < 2 && again == FLOW_OK; k++)
        if ((again = flow_plane_alloc(d, &held[nheld], SIDE, SIDE)) == FLOW_OK)
            nheld++;
    CHECK(again == FLOW_OK);
    if (again == FLOW_OK)
        for (int k = 0; k < 2; k++)
            flow_plane_free(d, &held[--nheld]);
    give_memory_back(d);
    flow_params_destroy(p);
}

/* An 8-bit PGM of SIDE x SIDE, a pattern that differs between the frames. */
static void write_frame(const char *path, int shift)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f, "P5\n%d %d\n255\n", SIDE, SIDE);
    unsigned char *row = malloc(SIDE);
    for (int y = 0; y < SIDE && row; y++) {
        for (int x = 0; x < SIDE; x++)
            row[x] = (unsigned char)((x + shift) * 7 + y * 13);
        CHECK(fwrite(row, 1, SIDE, f) == SIDE);
    }
    free(row);
    CHECK(fclose(f) == 0);
}

/* flow-compute beside this test: $BUILD/bin/, this binary being $BUILD/tests/. */
static int tool_path(char *buf, size_t size)
{
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    snprintf(buf, size, "%s/../bin/flow-compute", dirname(exe));
    return access(buf, X_OK) == 0;
}

static void test_cli_out_of_memory(void)
{
    flow_device *d = harness_device();
    char tool[PATH_MAX + 32];
    if (!d || strcmp(flow_device_kind(d), "cuda") != 0) {
        harness_skip("needs a CUDA device (FLOW_DEVICE=cuda)");
        return;
    }
    if (!tool_path(tool, sizeof tool)) {
        harness_skip("flow-compute is not built beside the tests");
        return;
    }
    const char *a = harness_path("a.pgm"), *b = harness_path("b.pgm");
    const char *out = harness_path("x.flo"), *err = harness_path("err.txt");
    write_frame(a, 0);
    write_frame(b, 1);
    if (!take_memory(d))
        return;
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "'%s' -d %s '%s' '%s' -o '%s' 2>'%s'", tool,
             getenv("FLOW_DEVICE") ? getenv("FLOW_DEVICE") : "cuda", a, b, out, err);
    const int status = system(cmd);
    give_memory_back(d);
    size_t n = 0;
    char *msg = (char *)harness_read_file(err, &n);
    printf("  flow-compute: exit %d: %s", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
           msg ? msg : "(no message)\n");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
    CHECK(msg && strstr(msg, "16384x16384") && strstr(msg, "out of device memory on ")
          && strstr(msg, flow_device_name(d)));
    CHECK(harness_file_size(out) < 0 && harness_count_files("x.flo") == 0);
    free(msg);
    remove(a);
    remove(b);
}

int main(void)
{
    harness_run("a 16384x16384 context on a full GPU: FLOW_ERR_NOMEM, size and device named",
                test_context_out_of_memory, 1);
    harness_run("flow-compute on a full GPU: exit 3, size and device named, no flow file",
                test_cli_out_of_memory, 1);
    {
        flow_device *d = harness_device();
        if (d)
            give_memory_back(d);
    }
    return harness_report();
}
