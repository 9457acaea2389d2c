/* test_progress.c -- the progress line's rate and time left
 * (tools-common/progress.h): the sustained rate after the first item, the
 * rate over the whole run at the final update (not over the moment since
 * the update before), never above the device's rate when items come in a
 * burst, and the text. */
#include "harness.h"
#include "progress.h"

#include <string.h>

/* Ten items, the first done after a 2 s start-up, then one every 100 ms:
 * 10 items/s, whenever the rate is asked. */
static void test_sustained_rate(void)
{
    const double start = 1000, first = 3000;
    CHECK_NEAR(progress_rate(10, start, first, first + 900, 0), 10.0, 1e-9);
    /* a final update right after the last one: the same rate, not one over
     * the few microseconds between them */
    CHECK_NEAR(progress_rate(10, start, first, first + 900.001, 0), 10.0, 1e-4);
    /* nothing after the first yet: the item over the time since the start */
    CHECK_NEAR(progress_rate(1, start, 0, start + 2000, 0), 0.5, 1e-12);
    CHECK(progress_rate(0, start, 0, start + 2000, 0) == 0);
    CHECK(progress_rate(1, start, 0, start, 0) == 0);
    /* no time since the first item: over the time since the start */
    CHECK_NEAR(progress_rate(3, start, first, first, 0), 1.5, 1e-12);
}

/* A burst at a pipeline's end: two flows handed on moments apart (the
 * second was computed before the first was handed on), while the device
 * time per flow (the last argument) allows a far lower rate: the rate shown
 * is the device's, not the burst's.  The arguments are made-up clock
 * readings, not measurements. */
static void test_burst_is_capped(void)
{
    CHECK_NEAR(progress_rate(2, 0, 2000, 2003, 0), 1000.0 / 3, 1e-9);
    CHECK_NEAR(progress_rate(2, 0, 2000, 2003, 10), 10.0, 1e-12);
    /* a rate below the ceiling is the measured one */
    CHECK_NEAR(progress_rate(10, 1000, 3000, 3900, 20), 10.0, 1e-9);
    CHECK_NEAR(progress_left_s(2, 12, 0, 2000, 2003, 10), 1.0, 1e-12);
    char buf[160];
    progress_text(buf, sizeof buf, "flows", 2, 2, 0, 2000, 2003, 10, 1);
    CHECK(strcmp(buf, "2/2 flows, 10.0 flows/s") == 0);
}

static void test_time_left(void)
{
    const double start = 0, first = 2000;
    /* 10 of 60 at 10 items/s: 5 s left */
    CHECK_NEAR(progress_left_s(10, 60, start, first, first + 900, 0), 5.0, 1e-9);
    CHECK(progress_left_s(10, -1, start, first, first + 900, 0) == -1);
    CHECK(progress_left_s(0, 60, start, first, first + 900, 0) == -1);
    CHECK(progress_left_s(60, 60, start, first, first + 5900, 0) == 0);
    /* one item in 2 s, 4 to go: 8 s */
    CHECK_NEAR(progress_left_s(1, 5, start, 0, 2000, 0), 8.0, 1e-9);
}

static void test_text(void)
{
    char buf[160];
    progress_text(buf, sizeof buf, "frames", 10, 60, 0, 2000, 2900, 0, 0);
    CHECK(strcmp(buf, "10/60 frames, 10.0 frames/s, 5 s left") == 0);
    progress_text(buf, sizeof buf, "flows", 10, 700, 0, 2000, 2900, 0, 0);
    CHECK(strcmp(buf, "10/700 flows, 10.0 flows/s, 1 min 09 s left") == 0);
    progress_text(buf, sizeof buf, "flows", 14, 14, 0, 2000, 3300, 0, 1);
    CHECK(strcmp(buf, "14/14 flows, 10.0 flows/s") == 0);
    progress_text(buf, sizeof buf, "flows", 3, -1, 0, 2000, 2200, 0, 0);
    CHECK(strcmp(buf, "3 flows, 10.0 flows/s") == 0);
    /* a short buffer is cut, never overrun */
    char small[8];
    memset(small, 'x', sizeof small);
    progress_text(small, sizeof small, "flows", 10, 700, 0, 2000, 2900, 0, 0);
    CHECK(strlen(small) == 7);
}

int main(void)
{
    harness_run("sustained_rate", test_sustained_rate, 1);
    harness_run("burst_is_capped", test_burst_is_capped, 1);
    harness_run("time_left", test_time_left, 1);
    harness_run("text", test_text, 1);
    return harness_report();
}
