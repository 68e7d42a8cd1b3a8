#ifndef ONAIR_CFFMPEG_SHIM_H
#define ONAIR_CFFMPEG_SHIM_H

#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

// Function-like and compound macros are invisible to Swift; each gets one constant here.

/// `AVERROR_EOF` is built with `FFERRTAG`, a macro Swift cannot import.
static const int CFFmpeg_AVERROR_EOF = AVERROR_EOF;
/// `AVERROR(EAGAIN)`: `AVERROR` is a function-like macro.
static const int CFFmpeg_AVERROR_EAGAIN = AVERROR(EAGAIN);
/// `AVERROR_INVALIDDATA` is built with `FFERRTAG`.
static const int CFFmpeg_AVERROR_INVALIDDATA = AVERROR_INVALIDDATA;
/// `AV_NOPTS_VALUE` is a cast expression, which Swift does not import.
static const int64_t CFFmpeg_AV_NOPTS_VALUE = AV_NOPTS_VALUE;
/// `AV_CHANNEL_LAYOUT_STEREO` is a compound literal macro.
static inline AVChannelLayout CFFmpeg_stereoLayout(void) {
    AVChannelLayout layout = AV_CHANNEL_LAYOUT_STEREO;
    return layout;
}

#endif
