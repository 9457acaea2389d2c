/* flowfile_common.h -- what the tests of flow files share (test_flowfile.c,
 * test_pfm.c, test_kitti.c): float bits, byte orders, fields compared bit
 * for bit or by their known vectors, a field of awkward values, and a bad
 * file expected to be refused with a message naming it. */
#ifndef TEST_FLOWFILE_COMMON_H
#define TEST_FLOWFILE_COMMON_H

#include "harness.h"
#include "flow/field.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint32_t bits(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    return b;
}

static inline float from_bits(uint32_t b)
{
    float x;
    memcpy(&x, &b, 4);
    return x;
}

static inline void put_le(unsigned char *p, uint32_t b)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(b >> (8 * i));
}

static inline void put_be(unsigned char *p, uint32_t b)
{
    for (int i = 0; i < 4; i++)
        p[3 - i] = (unsigned char)(b >> (8 * i));
}

static inline uint32_t get_le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t get_be(const unsigned char *p)
{
    return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

/* Number of vectors whose u or v bits differ. */
static inline long bit_differences(const flow_field *a, const flow_field *b)
{
    if (a->width != b->width || a->height != b->height)
        return -1;
    long d = 0;
    for (size_t i = 0; i < (size_t)a->width * a->height; i++)
        d += bits(a->u[i]) != bits(b->u[i]) || bits(a->v[i]) != bits(b->v[i]);
    return d;
}

/* Vectors that differ, treating any two unknown vectors as equal and known
 * ones bit for bit. */
static inline long known_differences(const flow_field *a, const flow_field *b)
{
    if (a->width != b->width || a->height != b->height)
        return -1;
    long d = 0;
    for (size_t i = 0; i < (size_t)a->width * a->height; i++) {
        int ua = flow_is_unknown(a->u[i], a->v[i]), ub = flow_is_unknown(b->u[i], b->v[i]);
        if (ua != ub)
            d++;
        else if (!ua && (bits(a->u[i]) != bits(b->u[i]) || bits(a->v[i]) != bits(b->v[i])))
            d++;
    }
    return d;
}

/* A 7x5 field of awkward values: -0, subnormals, huge, NaN with a payload,
 * FLOW_UNKNOWN, and ordinary fractions. */
static inline void awkward_field(flow_field *f, int with_raw_unknowns)
{
    CHECK_OK(flow_field_alloc(f, 7, 5));
    unsigned seed = 7;
    for (int i = 0; i < 35; i++) {
        f->u[i] = (float)(20.0 * harness_uniform(&seed) - 10.0);
        f->v[i] = (float)(20.0 * harness_uniform(&seed) - 10.0);
    }
    f->u[1] = -0.0f;
    f->v[2] = -0.0f;
    f->u[3] = from_bits(0x00000001u); /* smallest subnormal */
    f->v[3] = -from_bits(0x00400000u);
    f->u[4] = 3.0e8f, f->v[4] = -9.9e8f; /* large but known */
    f->u[10] = f->v[10] = FLOW_UNKNOWN;
    if (with_raw_unknowns) {
        f->u[11] = from_bits(0x7fc01234u); /* NaN with a payload */
        f->v[11] = 1.5f;
        f->u[12] = 2.0f;
        f->v[12] = 1666666752.0f; /* the unknown value Middlebury's files use */
    }
}


/* Reads p expecting status s and a detail containing p and `words`. */
static inline void expect_bad(const char *p, flow_status s, const char *words)
{
    flow_field f;
    memset(&f, 0x55, sizeof f);
    flow_status got = flow_field_read(p, &f);
    CHECK(got == s);
    CHECK(strstr(flow_last_error(), p) != NULL);
    CHECK(strstr(flow_last_error(), words) != NULL);
    if (got != s || !strstr(flow_last_error(), words))
        fprintf(stderr, "    %s: got %s: %s\n", p, flow_status_str(got), flow_last_error());
    CHECK(f.u == NULL && f.v == NULL && f.width == 0); /* left empty */
}

/* Writes n bytes of data as the scratch file `name`, then expect_bad() on it. */
static inline void expect_bad_bytes(const char *name, const void *data, size_t n,
                                    flow_status s, const char *words)
{
    const char *path = harness_path(name);
    harness_write_file(path, data, n);
    expect_bad(path, s, words);
}


#endif
