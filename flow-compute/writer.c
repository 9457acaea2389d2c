/* writer.c -- the outputs of the pairs written by a pool of threads, so
 * that writing the flow files, their .params and the pictures overlaps the
 * computation (a 1920x1080 .flo is 16.6 MB; one thread writes a few hundred
 * MB/s, the flows come faster).
 *
 * The queue owns the flow fields the computation downloads into, page-
 * locked so that every download runs at the bus's speed: the computing
 * thread asks for a free field, computes into it and puts it with its job;
 * a writer writes the job and hands the field back to the free list.  Jobs
 * are written in any order (each has files of its own).  A failed write is
 * reported by its writer as it happens and returned by the next put or by
 * finish; the jobs after it are dropped (their files removed: each job's
 * files are one group, tools-common/outputs.h). */
#include "compute.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WRITERS_MAX 8

typedef struct job {
    flow_field field;
    flow_image frame1; /* the job's first frame (vectors only) */
    char name[4200];
    long index;        /* the flow's place in the run, from 1 (flow images) */
    char header[8192];
    const flow_params *params; /* as the computation ran them */
    output_group *extra;       /* the pair's workflow images, or NULL */
    int state;         /* JOB_FREE, JOB_FILLING (the caller's), JOB_QUEUED, JOB_WRITING */
    long order;        /* queued jobs are written oldest first */
} job;

enum { JOB_FREE, JOB_FILLING, JOB_QUEUED, JOB_WRITING };

struct output_queue {
    const compute_options *o;
    flow_device *d;
    pthread_t thread[WRITERS_MAX];
    int nthreads;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job *jobs;
    int njobs;
    long puts;
    int stop;
    int rc;               /* the first failure, CLI_EXIT_OK until then */
    double write_ms, wait_ms;
    double last_ms;       /* when the last write ended */
};

static job *oldest_queued(output_queue *q)
{
    job *best = NULL;
    for (int i = 0; i < q->njobs; i++)
        if (q->jobs[i].state == JOB_QUEUED && (!best || q->jobs[i].order < best->order))
            best = &q->jobs[i];
    return best;
}

static void *writer(void *arg)
{
    output_queue *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        job *j;
        while (!(j = oldest_queued(q)) && !q->stop)
            pthread_cond_wait(&q->cv, &q->mu);
        if (!j)
            break; /* stopped with nothing left to write */
        j->state = JOB_WRITING;
        const int skip = q->rc != CLI_EXIT_OK;
        pthread_mutex_unlock(&q->mu);
        const double t0 = ftimer_now_ms();
        /* the job's buffers are this writer's until it is free again */
        output_group *extra = j->extra;
        j->extra = NULL;
        int rc = CLI_EXIT_OK;
        if (skip)
            output_group_destroy(extra);
        else
            rc = output_write(q->o, j->name, j->index, &j->field, &j->frame1, j->header, j->params, extra);
        const double t1 = ftimer_now_ms();
        pthread_mutex_lock(&q->mu);
        q->write_ms += t1 - t0;
        q->last_ms = t1 > q->last_ms ? t1 : q->last_ms;
        if (q->rc == CLI_EXIT_OK)
            q->rc = rc;
        j->state = JOB_FREE;
        pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
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

/* Writers: about half the cores (writing is mostly copying into the page
 * cache), at most WRITERS_MAX, at least 1. */
static int writer_count(void)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const long n = cores / 2;
    return (int)(n < 1 ? 1 : n < WRITERS_MAX ? n : WRITERS_MAX);
}

int output_queue_start(const compute_options *o, flow_device *d, int held, output_queue **out)
{
    *out = NULL;
    output_queue *q = calloc(1, sizeof *q);
    const int writers = writer_count();
    if (q)
        q->jobs = calloc((size_t)(writers + held), sizeof *q->jobs);
    if (!q || !q->jobs) {
        free(q);
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    q->o = o;
    q->d = d;
    q->njobs = writers + held;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    for (; q->nthreads < writers; q->nthreads++)
        if (pthread_create(&q->thread[q->nthreads], NULL, writer, q) != 0)
            break;
    if (!q->nthreads) {
        output_queue_finish(q, NULL, NULL, NULL);
        cli_error("cannot start the output writer threads");
        return CLI_EXIT_COMPUTE;
    }
    *out = q;
    return CLI_EXIT_OK;
}

int output_queue_field(output_queue *q, int width, int height, flow_field **field)
{
    *field = NULL;
    pthread_mutex_lock(&q->mu);
    const double t0 = ftimer_now_ms();
    job *j = NULL;
    while (q->rc == CLI_EXIT_OK) {
        for (int i = 0; i < q->njobs && !j; i++)
            if (q->jobs[i].state == JOB_FREE)
                j = &q->jobs[i];
        if (j)
            break;
        pthread_cond_wait(&q->cv, &q->mu);
    }
    q->wait_ms += ftimer_now_ms() - t0;
    const int rc = q->rc;
    if (j)
        j->state = JOB_FILLING;
    pthread_mutex_unlock(&q->mu);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!j->field.u) {
        if (flow_field_alloc(&j->field, width, height) != FLOW_OK)
            return cli_report_status(FLOW_ERR_NOMEM);
        field_pin(q->d, &j->field);
    }
    *field = &j->field;
    return CLI_EXIT_OK;
}

static job *job_of(output_queue *q, const flow_field *field)
{
    for (int i = 0; i < q->njobs; i++)
        if (&q->jobs[i].field == field)
            return &q->jobs[i];
    return NULL;
}

int output_queue_put(output_queue *q, const char *name, long index, flow_field *field,
                     const flow_image *frame1, const char *header, const flow_params *params,
                     output_group *extra)
{
    job *j = job_of(q, field);
    if (q->o->vectors) {
        if (!j->frame1.data
            && flow_image_alloc(&j->frame1, frame1->width, frame1->height, frame1->channels)
                   != FLOW_OK) {
            output_group_destroy(extra);
            return cli_report_status(FLOW_ERR_NOMEM);
        }
        memcpy(j->frame1.data, frame1->data,
               sizeof(float) * (size_t)frame1->width * frame1->height * frame1->channels);
    }
    snprintf(j->name, sizeof j->name, "%s", name);
    j->index = index;
    snprintf(j->header, sizeof j->header, "%s", header);
    j->params = params;
    j->extra = extra;
    pthread_mutex_lock(&q->mu);
    j->state = JOB_QUEUED;
    j->order = q->puts++;
    const int rc = q->rc;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return rc;
}

void output_queue_drop(output_queue *q, flow_field *field)
{
    job *j = job_of(q, field);
    pthread_mutex_lock(&q->mu);
    j->state = JOB_FREE;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

int output_queue_writers(const output_queue *q)
{
    return q->nthreads;
}

int output_queue_finish(output_queue *q, double *write_ms, double *wait_ms, double *last_ms)
{
    if (!q)
        return CLI_EXIT_OK;
    pthread_mutex_lock(&q->mu);
    const double t0 = ftimer_now_ms();
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    for (int i = 0; i < q->nthreads; i++)
        pthread_join(q->thread[i], NULL);
    q->wait_ms += ftimer_now_ms() - t0;
    const int rc = q->rc;
    if (write_ms)
        *write_ms = q->write_ms;
    if (wait_ms)
        *wait_ms = q->wait_ms;
    if (last_ms)
        *last_ms = q->last_ms;
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    for (int i = 0; i < q->njobs; i++) {
        field_unpin(q->d, &q->jobs[i].field);
        flow_field_free(&q->jobs[i].field);
        flow_image_free(&q->jobs[i].frame1);
        output_group_destroy(q->jobs[i].extra);
    }
    free(q->jobs);
    free(q);
    return rc;
}
