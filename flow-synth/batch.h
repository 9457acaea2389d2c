/* batch.h -- flow-synth's frames and ground-truth flows generated a batch
 * at a time, a thread per frame; main.c writes them in order. */
#ifndef FLOW_SYNTH_BATCH_H
#define FLOW_SYNTH_BATCH_H

#include "flow/flow.h"

/* What to generate: frame k (when `frames`) and the flow from k to k + 1
 * (when k < gt_until), of width x height and `channels`. */
typedef struct synth_request {
    const flow_synth *s;
    int width, height, channels;
    int frames;
    int gt_until;
} synth_request;

/* One frame of a batch and what became of it. */
typedef struct synth_item {
    const synth_request *req;
    int k;
    flow_image img;
    flow_field gt;
    flow_status st;
    char msg[1024]; /* flow_last_error() of a failure */
} synth_item;

#define SYNTH_BATCH_MAX 64

/* The frames of a batch: the CPUs online, 1 to SYNTH_BATCH_MAX. */
int synth_batch_size(void);

/* Generates frames k0 .. k0 + n - 1 (n <= SYNTH_BATCH_MAX) into
 * items[0 .. n - 1]: the caller's
 * thread the first, a thread of its own each of the others (one that
 * cannot be started runs on the caller's thread too). */
void synth_batch(const synth_request *req, int k0, int n, synth_item *items);

#endif
