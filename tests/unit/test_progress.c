/* test_progress.c -- the progress line's rate and time left
 * (tools-common/progress.h): the sustained rate after the first item, the
 * rate over the whole run at the final update (not over the moment since
 * the update before), and the text. */
#include "harness.h"
#include "progress.h"

#include <string.h>

/* Ten items, the first done after a 2 s start-up, then one every 100 ms:
 * 10 items/s, whenever the rate is asked. */
static void test_sustained_rate(void)
{
    const double start = 1000, first = 3000;
    CHECK_NEAR(progress_rate(10, start, first, first + 900), 10.0, 1e-9);
    /* a final update right after the last one: the same rate, not one over
     * the few microseconds between them */
    CHECK_NEAR(progress_rate(10, start, first, first + 900.001), 10.0, 1e-4);
    /* nothing after the first yet: the item over the time since the start */
    CHECK_NEAR(progress_rate(1, start, 0, start + 2000), 0.5, 1e-12);
    CHECK(progress_rate(0, start, 0, start + 2000) == 0);
    CHECK(progress_rate(1, start, 0, start) == 0);
    /* no time since the first item: over the time since the start */
    CHECK_NEAR(progress_rate(3, start, first, first), 1.5, 1e-12);
}

static void test_time_left(void)
{
    const double start = 0, first = 2000;
    /* 10 of 60 at 10 items/s: 5 s left */
    CHECK_NEAR(progress_left_s(10, 60, start, first, first + 900), 5.0, 1e-9);
    CHECK(progress_left_s(10, -1, start, first, first + 900) == -1);
    CHECK(progress_left_s(0, 60, start, first, first + 900) == -1);
    CHECK(progress_left_s(60, 60, start, first, first + 5900) == 0);
    /* one item in 2 s, 4 to go: 8 s */
    CHECK_NEAR(progress_left_s(1, 5, start, 0, 2000), 8.0, 1e-9);
}

static void test_text(void)
{
    char buf[160];
    progress_text(buf, sizeof buf, "frames", 10, 60, 0, 2000, 2900, 0);
    CHECK(strcmp(buf, "10/60 frames, 10.0 frames/s, 5 s left") == 0);
    progress_text(buf, sizeof buf, "flows", 10, 700, 0, 2000, 2900, 0);
    CHECK(strcmp(buf, "10/700 flows, 10.0 flows/s, 1 min 09 s left") == 0);
    progress_text(buf, sizeof buf, "flows", 14, 14, 0, 2000, 3300, 1);
    CHECK(strcmp(buf, "14/14 flows, 10.0 flows/s") == 0);
    progress_text(buf, sizeof buf, "flows", 3, -1, 0, 2000, 2200, 0);
    CHECK(strcmp(buf, "3 flows, 10.0 flows/s") == 0);
    /* a short buffer is cut, never overrun */
    char small[8];
    memset(small, 'x', sizeof small);
    progress_text(small, sizeof small, "flows", 10, 700, 0, 2000, 2900, 0);
    CHECK(strlen(small) == 7);
}

int main(void)
{
    harness_run("sustained_rate", test_sustained_rate, 1);
    harness_run("time_left", test_time_left, 1);
    harness_run("text", test_text, 1);
    return harness_report();
}
