/* Tones through sceAudio, for allegrex run --audio: each phase prints when it started and
   when its last sample had played (simulated microseconds), so a test can find it in the
   WAV. A: a 1 kHz stereo tone with sceAudioOutputBlocking (the right side at half the
   amplitude). B: two channels at once, 440 Hz stereo and 3 kHz mono panned to the left.
   C: the SRC channel at 22050 Hz playing 1 kHz. Then the codes some bad arguments get. */
#include <math.h>
#include <stdio.h>
#include <pspsdk.h>

PSP_MODULE_INFO("audio_tone", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER);
PSP_HEAP_SIZE_KB(256);

#define SAMPLES 1024
#define BUFFERS 32
#define GAP_US 100000
#define TWO_PI 6.28318530718f

static s16 stereo[2][SAMPLES * 2];
static s16 mono[2][SAMPLES];

/* One wave's phase, kept in [0, 1) so sinf stays accurate however long it plays. */
typedef struct { float phase, step; } Tone;

static Tone tone(float hz, float rate) { Tone t = {0.0f, hz / rate}; return t; }

static float next(Tone *t)
{
    float v = sinf(TWO_PI * t->phase);
    t->phase += t->step;
    if (t->phase >= 1.0f)
        t->phase -= 1.0f;
    return v;
}

static void fill_stereo(s16 *buf, Tone *left, Tone *right, int left_amp, int right_amp)
{
    for (int i = 0; i < SAMPLES; i++) {
        buf[2 * i] = (s16)(left_amp * next(left));
        buf[2 * i + 1] = (s16)(right_amp * next(right));
    }
}

static void fill_mono(s16 *buf, Tone *t, int amp)
{
    for (int i = 0; i < SAMPLES; i++)
        buf[i] = (s16)(amp * next(t));
}

/* Wait until the channel's last buffer has been taken and its last block played. */
static void drain(int channel)
{
    while (sceAudioGetChannelRestLen(channel) > 0)
        sceKernelDelayThread(1000);
    sceKernelDelayThread(3000);
}

static void phase_a(void)
{
    int ch = sceAudioChReserve(PSP_AUDIO_NEXT_CHANNEL, SAMPLES, PSP_AUDIO_FORMAT_STEREO);
    Tone left = tone(1000.0f, 44100.0f), right = tone(1000.0f, 44100.0f);
    long long start = sceKernelGetSystemTimeWide();
    for (int i = 0; i < BUFFERS; i++) {
        fill_stereo(stereo[i & 1], &left, &right, 16000, 8000);
        sceAudioOutputBlocking(ch, PSP_AUDIO_VOLUME_MAX, stereo[i & 1]);
    }
    drain(ch);
    printf("A channel %d: %lld %lld\n", ch, start, sceKernelGetSystemTimeWide());
    sceAudioChRelease(ch);
}

static void phase_b(void)
{
    int low = sceAudioChReserve(0, SAMPLES, PSP_AUDIO_FORMAT_STEREO);
    int high = sceAudioChReserve(1, SAMPLES, PSP_AUDIO_FORMAT_MONO);
    Tone l = tone(440.0f, 44100.0f), r = tone(440.0f, 44100.0f), h = tone(3000.0f, 44100.0f);
    long long start = sceKernelGetSystemTimeWide();
    for (int i = 0; i < BUFFERS; i++) {
        fill_stereo(stereo[i & 1], &l, &r, 10000, 10000);
        fill_mono(mono[i & 1], &h, 10000);
        sceAudioOutputBlocking(low, PSP_AUDIO_VOLUME_MAX, stereo[i & 1]);
        sceAudioOutputPannedBlocking(high, PSP_AUDIO_VOLUME_MAX, PSP_AUDIO_VOLUME_MAX / 2, mono[i & 1]);
    }
    drain(low);
    drain(high);
    printf("B channels %d %d: %lld %lld\n", low, high, start, sceKernelGetSystemTimeWide());
    sceAudioChRelease(low);
    sceAudioChRelease(high);
}

static void phase_c(void)
{
    int reserved = sceAudioSRCChReserve(SAMPLES, 22050, 2);
    Tone left = tone(1000.0f, 22050.0f), right = tone(1000.0f, 22050.0f);
    long long start = sceKernelGetSystemTimeWide();
    for (int i = 0; i < BUFFERS / 2; i++) {
        fill_stereo(stereo[i & 1], &left, &right, 12000, 12000);
        sceAudioSRCOutputBlocking(PSP_AUDIO_VOLUME_MAX, stereo[i & 1]);
    }
    while (sceAudioOutput2GetRestSample() > 0)
        sceKernelDelayThread(1000);
    while (sceAudioSRCChRelease() < 0)  /* busy until the stream has played its last frames */
        sceKernelDelayThread(1000);
    printf("C src %d: %lld %lld\n", reserved, start, sceKernelGetSystemTimeWide());
}

static void bad_arguments(void)
{
    int ch = sceAudioChReserve(2, SAMPLES, PSP_AUDIO_FORMAT_STEREO);
    printf("channel 8: %08x\n", sceAudioChReserve(8, SAMPLES, PSP_AUDIO_FORMAT_STEREO));
    printf("100 samples: %08x\n", sceAudioChReserve(0, 100, PSP_AUDIO_FORMAT_STEREO));
    printf("format 1: %08x\n", sceAudioChReserve(0, SAMPLES, 1));
    printf("unreserved channel: %08x\n", sceAudioOutput(5, PSP_AUDIO_VOLUME_MAX, stereo[0]));
    printf("volume 0x10000: %08x\n", sceAudioOutputBlocking(ch, 0x10000, stereo[0]));
    printf("kernel buffer: %08x\n", sceAudioOutput(ch, PSP_AUDIO_VOLUME_MAX, (void *)0x88100000));
    printf("SRC at 36000 Hz: %08x\n", sceAudioSRCChReserve(SAMPLES, 36000, 2));
    printf("Output2 of 16 samples: %08x\n", sceAudioOutput2Reserve(16));
    sceAudioChRelease(ch);
}

int main(void)
{
    phase_a();
    sceKernelDelayThread(GAP_US);
    phase_b();
    sceKernelDelayThread(GAP_US);
    phase_c();
    sceKernelDelayThread(GAP_US);
    bad_arguments();
    return 0;
}
