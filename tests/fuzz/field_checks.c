/* field_checks.c -- the checks every flow-file reader shares (field_checks.h). */
#include "field_checks.h"

#include <string.h>

void fuzz_write_read(const flow_field *f, const char *name, flow_field *back)
{
    const char *path = fuzz_path(name);
    FUZZ_REQUIRE(flow_field_write(path, f) == FLOW_OK);
    FUZZ_REQUIRE(flow_field_read(path, back) == FLOW_OK);
    FUZZ_REQUIRE(back->width == f->width && back->height == f->height);
}

/* The most vectors an input of n bytes may give: 8 bytes each; a .F,
 * whose reader fills the image around a smaller window, 4 times that or
 * 2^20; a KITTI .png, 6 bytes each after deflate, which expands a byte to
 * at most 1032. */
static double vectors_paid(const char *ext, size_t n)
{
    const double paid = (double)n / 8;
    if (strcmp(ext, "F") == 0)
        return 4 * paid > 1 << 20 ? 4 * paid : 1 << 20;
    if (strcmp(ext, "png") == 0)
        return 1032.0 * (double)n / 6;
    return paid;
}

int fuzz_round_trips(const flow_field *f)
{
    return (double)f->width * f->height <= 1 << 16;
}

int fuzz_read_field(const uint8_t *data, size_t n, const char *ext, flow_field *f)
{
    char name[16];
    snprintf(name, sizeof name, "in.%s", ext);
    const char *path = fuzz_write(name, data, n);
    memset(f, 0x55, sizeof *f);
    const flow_status s = flow_field_read(path, f);
    if (s != FLOW_OK) {
        static const flow_status allowed[] = {FLOW_ERR_FORMAT, FLOW_ERR_SIZE, FLOW_OK};
        fuzz_refused(s, path, allowed);
        FUZZ_REQUIRE(f->u == NULL && f->v == NULL && f->width == 0 && f->height == 0);
        return 0;
    }
    const double vectors = (double)f->width * f->height;
    FUZZ_REQUIRE(f->width >= 1 && f->height >= 1 && f->u && f->v);
    FUZZ_REQUIRE(vectors <= (double)FLOW_IMAGE_MAX_PIXELS);
    FUZZ_REQUIRE(vectors <= vectors_paid(ext, n));
    if (!fuzz_round_trips(f))
        return 1;
    flow_field back;
    fuzz_write_read(f, "out.flo", &back);
    for (size_t i = 0; i < (size_t)vectors; i++)
        FUZZ_REQUIRE(fuzz_same_bits(back.u[i], f->u[i]) && fuzz_same_bits(back.v[i], f->v[i]));
    flow_field_free(&back);
    return 1;
}
