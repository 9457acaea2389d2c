/* image_checks.c -- the checks both image readers share (image_checks.h). */
#include "image_checks.h"
#include "io/image_formats.h" /* flow_quantize_u8: what the 8-bit writers store */

#include <string.h>

static const flow_status refusals[] = {FLOW_ERR_FORMAT, FLOW_ERR_SIZE, FLOW_ERR_UNSUPPORTED,
                                       FLOW_OK};

/* The 8-bit reader against the float image (NULL when that was refused). */
static void check_bytes(const char *path, const flow_image *img)
{
    flow_image8 b = {0};
    const flow_status s = flow_image8_read(path, &b);
    if (s != FLOW_OK) {
        fuzz_refused(s, path, refusals);
        FUZZ_REQUIRE(b.data == NULL);
        return;
    }
    FUZZ_REQUIRE(img != NULL);
    FUZZ_REQUIRE(b.width == img->width && b.height == img->height &&
                 b.channels == img->channels);
    const size_t plane = (size_t)img->width * img->height;
    for (size_t i = 0; i < plane; i++)
        for (int c = 0; c < img->channels; c++)
            FUZZ_REQUIRE(b.data[i * img->channels + c] == img->data[c * plane + i]);
    flow_image8_free(&b);
}

void fuzz_image_reader(const uint8_t *data, size_t n, const char *name, const char *out_ext,
                       double max_pixels)
{
    const char *in = fuzz_write(name, data, n);
    char path[512];
    snprintf(path, sizeof path, "%s", in);
    flow_image img;
    memset(&img, 0x55, sizeof img);
    const flow_status s = flow_image_read(path, &img);
    if (s != FLOW_OK) {
        fuzz_refused(s, path, refusals);
        FUZZ_REQUIRE(img.data == NULL);
        check_bytes(path, NULL);
        return;
    }
    FUZZ_REQUIRE(img.data && (img.channels == 1 || img.channels == 3));
    FUZZ_REQUIRE(img.width >= 1 && img.height >= 1);
    const size_t plane = (size_t)img.width * img.height, total = plane * img.channels;
    FUZZ_REQUIRE((double)plane <= max_pixels);
    for (size_t i = 0; i < total; i++)
        FUZZ_REQUIRE(img.data[i] >= 0.0f && img.data[i] <= 255.0f); /* NaN fails too */
    check_bytes(path, &img);

    char out[32];
    snprintf(out, sizeof out, "out.%s",
             strcmp(out_ext, "png") == 0 ? "png" : img.channels == 3 ? "ppm" : "pgm");
    snprintf(path, sizeof path, "%s", fuzz_path(out));
    flow_image back;
    FUZZ_REQUIRE(flow_image_write(path, &img) == FLOW_OK);
    FUZZ_REQUIRE(flow_image_read(path, &back) == FLOW_OK);
    FUZZ_REQUIRE(back.width == img.width && back.height == img.height &&
                 back.channels == img.channels);
    for (size_t i = 0; i < total; i++)
        FUZZ_REQUIRE(back.data[i] == (float)flow_quantize_u8(img.data[i]));
    flow_image_free(&back);
    flow_image_free(&img);
}
