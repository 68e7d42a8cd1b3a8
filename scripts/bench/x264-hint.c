/*
 * What telling x264 which macroblocks did not change would save: encodes raw yuv420p pictures
 * with libx264 (the settings of scripts/bench-damage.sh), either as libav 5.1 does (no hint) or
 * with x264's mb_info marking every macroblock identical to the picture before as constant
 * (X264_MBINFO_CONSTANT), the most a damage-aware publisher could tell it. Prints the CPU time
 * spent inside x264 (all its threads), the bytes out, and the share of macroblocks marked.
 *
 *   x264-hint FILE WIDTH HEIGHT FPS none|constant
 *
 * libav passes this hint on only from FFmpeg 6.1 (AV_FRAME_DATA_VIDEO_HINT, libx264's mb_info
 * option); Debian 12 ships 5.1, hence this program, which talks to libx264 itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x264.h>

static double cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* 1 when the w x h block at (x, y) of a plane is the same in both pictures. */
static int same_block(const uint8_t *a, const uint8_t *b, int stride, int x, int y, int w, int h) {
    for (int row = y; row < y + h; row++)
        if (memcmp(a + (size_t)row * stride + x, b + (size_t)row * stride + x, (size_t)w) != 0) return 0;
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 6 || (strcmp(argv[5], "none") != 0 && strcmp(argv[5], "constant") != 0)) {
        fprintf(stderr, "usage: x264-hint FILE WIDTH HEIGHT FPS none|constant\n");
        return 2;
    }
    const int width = atoi(argv[2]), height = atoi(argv[3]), fps = atoi(argv[4]);
    const int hint = strcmp(argv[5], "constant") == 0;
    if (width <= 0 || height <= 0 || width % 16 || height % 8 || fps <= 0) {
        fprintf(stderr, "x264-hint: the width must be a multiple of 16, the height of 8\n");
        return 2;
    }
    const size_t luma = (size_t)width * height, picture = luma * 3 / 2;
    FILE *file = fopen(argv[1], "rb");
    if (!file) {
        perror(argv[1]);
        return 1;
    }
    uint8_t *previous = malloc(picture), *current = malloc(picture);

    x264_param_t param;
    if (x264_param_default_preset(&param, "veryfast", "zerolatency") < 0) return 1;
    param.i_width = width;
    param.i_height = height;
    param.i_csp = X264_CSP_I420;
    param.i_fps_num = (uint32_t)fps;
    param.i_fps_den = 1;
    param.i_keyint_max = param.i_keyint_min = 2 * fps;
    param.i_scenecut_threshold = 0;
    param.i_bframe = 0;
    param.rc.i_rc_method = X264_RC_ABR;
    param.rc.i_bitrate = param.rc.i_vbv_max_bitrate = param.rc.i_vbv_buffer_size = 2500;
    param.b_repeat_headers = 1;
    param.i_log_level = X264_LOG_NONE;
    param.analyse.b_mb_info = hint;
    x264_t *encoder = x264_encoder_open(&param);
    if (!encoder) return 1;

    const int columns = (width + 15) / 16, rows = (height + 15) / 16;
    uint8_t *info = calloc((size_t)columns * rows, 1);
    x264_picture_t in, out;
    x264_picture_init(&in);
    in.img.i_csp = X264_CSP_I420;
    in.img.i_plane = 3;
    in.img.i_stride[0] = width;
    in.img.i_stride[1] = in.img.i_stride[2] = width / 2;

    double spent = 0;
    long frames = 0, bytes = 0, marked = 0;
    for (; fread(current, 1, picture, file) == picture; frames++) {
        if (hint) {
            for (int my = 0; my < rows; my++)
                for (int mx = 0; mx < columns; mx++) {
                    /* The bottom row of macroblocks may reach past the picture (1080 = 67.5 x 16). */
                    const int tall = height - my * 16 < 16 ? height - my * 16 : 16;
                    int same = frames > 0 && same_block(current, previous, width, mx * 16, my * 16, 16, tall) &&
                               same_block(current + luma, previous + luma, width / 2, mx * 8, my * 8, 8, tall / 2) &&
                               same_block(current + luma * 5 / 4, previous + luma * 5 / 4, width / 2, mx * 8, my * 8,
                                          8, tall / 2);
                    info[my * columns + mx] = same ? X264_MBINFO_CONSTANT : 0;
                    marked += same;
                }
            /* One buffer for every picture: with zerolatency x264 holds no picture back, so it is
               done with the flags when x264_encoder_encode returns (no mb_info_free needed). */
            in.prop.mb_info = info;
        }
        in.img.plane[0] = current;
        in.img.plane[1] = current + luma;
        in.img.plane[2] = current + luma * 5 / 4;
        in.i_pts = frames;
        x264_nal_t *nals;
        int count;
        const double before = cpu_seconds();
        const int size = x264_encoder_encode(encoder, &nals, &count, &in, &out);
        spent += cpu_seconds() - before;
        if (size < 0) return 1;
        bytes += size;
        uint8_t *swap = previous;
        previous = current;
        current = swap;
    }
    while (x264_encoder_delayed_frames(encoder) > 0) {
        x264_nal_t *nals;
        int count;
        const double before = cpu_seconds();
        const int size = x264_encoder_encode(encoder, &nals, &count, NULL, &out);
        spent += cpu_seconds() - before;
        if (size < 0) return 1;
        bytes += size;
    }
    x264_encoder_close(encoder);
    printf("%s %.2f %ld %.1f %ld\n", argv[5], spent, bytes,
           frames ? 100.0 * (double)marked / ((double)frames * columns * rows) : 0.0, frames);
    return 0;
}
