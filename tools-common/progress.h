/* progress.h -- the text of a progress line (flow-compute's flows,
 * flow-track's frames): count, rate and time left.
 *
 * The rate is the sustained one: the items after the first over the time
 * since the first was done, so that the start-up (opening the device,
 * decoding the first frames, the first computation's allocations and graph
 * capture) does not count; before a second item is done (or while no time
 * has passed since the first) it is the items over the time since the
 * start.  The same rule holds for every update, the final one included, so
 * that the last line shows the rate of the run and not of its last
 * moment.  Items handed on in a burst (the flows a pipeline still held,
 * collected one after the other at its end) would make that rate more than
 * the work can do: it is never more than `ceiling`, the rate the device
 * itself allows (its time per item), when the caller knows one.  The time
 * left is the items still expected at that rate (the first item's time for
 * the first).  cli.h draws the line. */
#ifndef FLOW_TOOLS_PROGRESS_H
#define FLOW_TOOLS_PROGRESS_H

#include <stddef.h>

/* Items per second after `done` items, the run started at start_ms and the
 * first item done at first_ms (times in ms of one clock; first_ms is read
 * only when done >= 2), at most `ceiling` items per second when ceiling >
 * 0; 0 when nothing can be said yet. */
double progress_rate(long done, double start_ms, double first_ms, double now_ms,
                     double ceiling);

/* Seconds left until `expected` items are done at progress_rate; -1 when
 * unknown (expected < 0, or no item done yet). */
double progress_left_s(long done, long expected, double start_ms, double first_ms,
                       double now_ms, double ceiling);

/* The line, "12/60 frames, 3.4 frames/s, 14 s left" ("1 min 05 s left"
 * from a minute; without "/N" when expected < 0; no time left when final),
 * into buf[size]; `unit` names the items ("flows"). */
void progress_text(char *buf, size_t size, const char *unit, long done, long expected,
                   double start_ms, double first_ms, double now_ms, double ceiling, int final);

#endif
