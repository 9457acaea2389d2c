/* progress.c -- the text of a progress line: count, sustained rate, time
 * left (progress.h). */
#include "progress.h"

#include <stdio.h>

double progress_rate(long done, double start_ms, double first_ms, double now_ms,
                     double ceiling)
{
    double rate = 0;
    if (done >= 2 && now_ms > first_ms)
        rate = 1000.0 * (double)(done - 1) / (now_ms - first_ms);
    else if (done >= 1 && now_ms > start_ms)
        rate = 1000.0 * (double)done / (now_ms - start_ms);
    return ceiling > 0 && rate > ceiling ? ceiling : rate;
}

double progress_left_s(long done, long expected, double start_ms, double first_ms,
                       double now_ms, double ceiling)
{
    if (expected < 0 || done < 1)
        return -1;
    if (done >= expected)
        return 0;
    const double rate = progress_rate(done, start_ms, first_ms, now_ms, ceiling);
    return rate > 0 ? (double)(expected - done) / rate : -1;
}

void progress_text(char *buf, size_t size, const char *unit, long done, long expected,
                   double start_ms, double first_ms, double now_ms, double ceiling, int final)
{
    const double rate = progress_rate(done, start_ms, first_ms, now_ms, ceiling);
    int n = expected >= 0 ? snprintf(buf, size, "%ld/%ld %s, %.1f %s/s", done, expected, unit,
                                     rate, unit)
                          : snprintf(buf, size, "%ld %s, %.1f %s/s", done, unit, rate, unit);
    const double left =
        final ? -1 : progress_left_s(done, expected, start_ms, first_ms, now_ms, ceiling);
    if (left < 0 || n < 0 || (size_t)n >= size)
        return;
    const long secs = (long)(left + 0.5);
    if (secs >= 60)
        snprintf(buf + n, size - (size_t)n, ", %ld min %02ld s left", secs / 60, secs % 60);
    else
        snprintf(buf + n, size - (size_t)n, ", %ld s left", secs);
}
