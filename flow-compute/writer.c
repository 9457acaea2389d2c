/* writer.c -- the outputs of a pair written by a thread of their own, so
 * that writing the flow file, its .params and the pictures of pair k
 * overlaps the computation of pair k+1 (a 1920x1080 .flo is 16.6 MB).
 *
 * One job at a time: output_queue_put() waits until the previous pair is
 * written, then swaps the caller's flow field with the queue's spare one
 * (no copy: the caller computes the next flow into the spare, page-locked
 * like the caller's so that every download is fast) and copies
 * the first frame only when the vector picture needs it.  A failed write
 * is reported by the writer thread as it happens and returned by the next
 * put or by finish, which stops the loop. */
#include "compute.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct output_queue {
    const compute_options *o;
    flow_device *d;      /* the spare field is page-locked for it, as the caller's is */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int busy;             /* a job is queued or being written */
    int stop;
    int rc;               /* the first failure, CLI_EXIT_OK until then */
    flow_field field;     /* the job's flow; the spare between jobs */
    flow_image frame1;    /* the job's first frame (vectors only) */
    char name[4200];
    char header[8192];
    double write_ms, wait_ms;
};

static void *writer(void *arg)
{
    output_queue *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->busy && !q->stop)
            pthread_cond_wait(&q->cv, &q->mu);
        if (!q->busy)
            break; /* stopped with nothing left to write */
        pthread_mutex_unlock(&q->mu);
        const double t0 = ftimer_now_ms();
        /* The job's buffers are the writer's until busy is cleared. */
        int rc = output_write(q->o, q->name, &q->field, &q->frame1, q->header);
        const double ms = ftimer_now_ms() - t0;
        pthread_mutex_lock(&q->mu);
        q->write_ms += ms;
        if (q->rc == CLI_EXIT_OK)
            q->rc = rc;
        q->busy = 0;
        pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

int output_queue_start(const compute_options *o, flow_device *d, output_queue **out)
{
    *out = NULL;
    output_queue *q = calloc(1, sizeof *q);
    if (!q) {
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    q->o = o;
    q->d = d;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    if (pthread_create(&q->thread, NULL, writer, q) != 0) {
        pthread_mutex_destroy(&q->mu);
        pthread_cond_destroy(&q->cv);
        free(q);
        cli_error("cannot start the output writer thread");
        return CLI_EXIT_COMPUTE;
    }
    *out = q;
    return CLI_EXIT_OK;
}

void field_pin(flow_device *d, flow_field *f)
{
    const size_t bytes = (size_t)f->width * f->height * sizeof(float);
    if (flow_device_pin(d, f->u, bytes) == FLOW_OK)
        flow_device_pin(d, f->v, bytes);
}

void field_unpin(flow_device *d, flow_field *f)
{
    flow_device_unpin(d, f->u);
    flow_device_unpin(d, f->v);
}

/* Waits (under mu) until no job is pending; counts the time waited. */
static void wait_idle(output_queue *q)
{
    const double t0 = ftimer_now_ms();
    while (q->busy)
        pthread_cond_wait(&q->cv, &q->mu);
    q->wait_ms += ftimer_now_ms() - t0;
}

int output_queue_put(output_queue *q, const char *name, flow_field *field,
                     const flow_image *frame1, const char *header)
{
    pthread_mutex_lock(&q->mu);
    wait_idle(q);
    int rc = q->rc;
    pthread_mutex_unlock(&q->mu);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* The writer is idle: its buffers are ours until busy is set again. */
    if (!q->field.u) {
        if (flow_field_alloc(&q->field, field->width, field->height) != FLOW_OK)
            return cli_report_status(FLOW_ERR_NOMEM);
        field_pin(q->d, &q->field);
    }
    if (q->o->vectors) {
        if (!q->frame1.data
            && flow_image_alloc(&q->frame1, frame1->width, frame1->height, frame1->channels)
                   != FLOW_OK)
            return cli_report_status(FLOW_ERR_NOMEM);
        memcpy(q->frame1.data, frame1->data,
               sizeof(float) * (size_t)frame1->width * frame1->height * frame1->channels);
    }
    flow_field spare = q->field;
    q->field = *field;
    *field = spare;
    snprintf(q->name, sizeof q->name, "%s", name);
    snprintf(q->header, sizeof q->header, "%s", header);
    pthread_mutex_lock(&q->mu);
    q->busy = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return CLI_EXIT_OK;
}

int output_queue_finish(output_queue *q, double *write_ms, double *wait_ms)
{
    if (!q)
        return CLI_EXIT_OK;
    pthread_mutex_lock(&q->mu);
    wait_idle(q);
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->thread, NULL);
    const int rc = q->rc;
    if (write_ms)
        *write_ms = q->write_ms;
    if (wait_ms)
        *wait_ms = q->wait_ms;
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    field_unpin(q->d, &q->field);
    flow_field_free(&q->field);
    flow_image_free(&q->frame1);
    free(q);
    return rc;
}
