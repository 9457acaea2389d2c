/* test_cpu_threads.c -- the CPU device's threads (whatever FLOW_DEVICE
 * says: the device opened here is "cpu"): FLOW_THREADS sets how many and
 * the device's name says so, a value that is not a number of threads is
 * refused; the methods give the same flow bit for bit on one thread and on
 * three; two devices computing from two threads at once give the flows
 * each gives alone. */
#include "harness.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define W 256
#define H 192

/* The CPU device with FLOW_THREADS = threads. */
static flow_device *open_cpu(const char *threads)
{
    char *saved = harness_env_save("FLOW_THREADS");
    setenv("FLOW_THREADS", threads, 1);
    flow_device *d = NULL;
    CHECK_OK(flow_device_open("cpu", &d));
    harness_env_restore("FLOW_THREADS", saved);
    return d;
}

static void test_thread_count(void)
{
    flow_device *one = open_cpu("1"), *three = open_cpu("3");
    CHECK(one && strcmp(flow_device_name(one), "CPU (1 thread)") == 0);
    CHECK(three && strcmp(flow_device_name(three), "CPU (3 threads)") == 0);
    flow_device_close(one);
    flow_device_close(three);
    char *saved = harness_env_save("FLOW_THREADS");
    const char *bad[] = {"0", "two", "4k", ""};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        setenv("FLOW_THREADS", bad[k], 1);
        flow_device *d = (flow_device *)&d;
        CHECK(flow_device_open("cpu", &d) == FLOW_ERR_INVALID && d == NULL);
        CHECK(strstr(flow_last_error(), "FLOW_THREADS") != NULL);
    }
    harness_env_restore("FLOW_THREADS", saved);
}

/* The frames every computation here uses: a smooth motion of about 1.5 px. */
static flow_image frame0, frame1;

static void make_frames(void)
{
    flow_synth s = {.motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.5, .wavelength = 40, .seed = 3};
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 0, &frame0));
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 1, &frame1));
}

/* The flow of (frame0, frame1) by `method` with `settings` on d, into out
 * (allocated here); 0 when it failed (saying why).  No CHECK: the threads
 * of test_two_devices_two_threads call it too. */
static int compute(flow_device *d, const char *method, const char *settings, flow_field *out)
{
    flow_params *p = harness_params(method, settings);
    flow_context *ctx = NULL;
    int ok = p && flow_field_alloc(out, W, H) == FLOW_OK
             && flow_context_create(d, W, H, 1, p, &ctx) == FLOW_OK
             && flow_context_compute(ctx, &frame0, &frame1, out) == FLOW_OK;
    if (!ok)
        fprintf(stderr, "    -> %s %s: %s\n", method, settings, flow_last_error());
    flow_context_destroy(ctx);
    flow_params_destroy(p);
    return ok;
}

static int same_field(const flow_field *a, const flow_field *b)
{
    const size_t bytes = (size_t)W * H * sizeof(float);
    return memcmp(a->u, b->u, bytes) == 0 && memcmp(a->v, b->v, bytes) == 0;
}

static const struct {
    const char *method, *settings;
} runs[] = {
    {"lk", ""},
    {"hs", "solver=fmg"},
    {"clg-nl", "solver=fmg"},
    {"clg-nl", "solver=rbsor iterations=20 warp_levels=2"},
    {"robust", ""},
    {"plk", ""},
    {"dis", "preset=medium"},
};
#define NRUNS ((int)(sizeof runs / sizeof runs[0]))

static void test_same_flow_on_any_threads(void)
{
    flow_device *one = open_cpu("1"), *three = open_cpu("3");
    for (int k = 0; one && three && k < NRUNS; k++) {
        flow_field f1 = {0}, f3 = {0};
        const int ok = compute(one, runs[k].method, runs[k].settings, &f1)
                       && compute(three, runs[k].method, runs[k].settings, &f3);
        const int same = ok && same_field(&f1, &f3);
        CHECK(same);
        if (ok && !same)
            fprintf(stderr, "    -> %s %s differs\n", runs[k].method, runs[k].settings);
        flow_field_free(&f1);
        flow_field_free(&f3);
    }
    flow_device_close(one);
    flow_device_close(three);
}

/* One device computing one method several times from a thread of its own. */
typedef struct worker {
    flow_device *d;
    int run;             /* index into runs[] */
    const flow_field *want;
    int wrong;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < 3; i++) {
        flow_field f = {0};
        w->wrong += !compute(w->d, runs[w->run].method, runs[w->run].settings, &f)
                    || !same_field(&f, w->want);
        flow_field_free(&f);
    }
    return NULL;
}

static void test_two_devices_two_threads(void)
{
    worker w[2] = {{open_cpu("2"), 2, NULL, 0}, {open_cpu("3"), 6, NULL, 0}};
    flow_field want[2] = {{0}, {0}};
    int ok = w[0].d && w[1].d;
    for (int i = 0; ok && i < 2; i++) {
        ok = compute(w[i].d, runs[w[i].run].method, runs[w[i].run].settings, &want[i]);
        CHECK(ok);
        w[i].want = &want[i];
    }
    pthread_t t[2];
    int started[2] = {0, 0};
    for (int i = 0; ok && i < 2; i++)
        started[i] = pthread_create(&t[i], NULL, work, &w[i]) == 0;
    for (int i = 0; i < 2; i++)
        if (started[i])
            pthread_join(t[i], NULL);
    CHECK(!ok || (started[0] && started[1]));
    CHECK(w[0].wrong == 0 && w[1].wrong == 0);
    for (int i = 0; i < 2; i++) {
        flow_field_free(&want[i]);
        flow_device_close(w[i].d);
    }
}

int main(void)
{
    make_frames();
    RUN(test_thread_count);
    RUN(test_same_flow_on_any_threads);
    RUN(test_two_devices_two_threads);
    flow_image_free(&frame0);
    flow_image_free(&frame1);
    return harness_report();
}
