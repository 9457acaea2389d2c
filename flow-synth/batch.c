/* batch.c -- a batch of flow-synth's frames generated in parallel (batch.h). */
#include "batch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int synth_batch_size(void)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : cpus > SYNTH_BATCH_MAX ? SYNTH_BATCH_MAX : (int)cpus;
}

static void *generate(void *arg)
{
    synth_item *it = arg;
    const synth_request *r = it->req;
    it->st = FLOW_OK;
    if (r->frames)
        it->st = flow_synth_frame(r->s, r->width, r->height, r->channels, it->k, &it->img);
    if (it->st == FLOW_OK && it->k < r->gt_until)
        it->st = flow_synth_flow(r->s, r->width, r->height, it->k, &it->gt);
    if (it->st != FLOW_OK)
        snprintf(it->msg, sizeof it->msg, "%s", flow_last_error());
    return NULL;
}

void synth_batch(const synth_request *req, int k0, int n, synth_item *items)
{
    pthread_t thread[SYNTH_BATCH_MAX];
    int started[SYNTH_BATCH_MAX] = {0};
    for (int i = 0; i < n; i++) {
        items[i].req = req;
        items[i].k = k0 + i;
    }
    for (int i = 1; i < n; i++)
        started[i] = pthread_create(&thread[i], NULL, generate, &items[i]) == 0;
    generate(&items[0]);
    for (int i = 1; i < n; i++) {
        if (started[i])
            pthread_join(thread[i], NULL);
        else
            generate(&items[i]);
    }
}
