// The benchmarks' animated screen: a loop of raw BGRX pictures shown over the whole X screen at a
// steady rate, each put through MIT-SHM in one request. It costs a few per cent of a core, where
// ffplay making testsrc2 at 1920x1080 and drawing it through SDL took most of one of the
// machine's two, and so left the publishers measured beside it short of CPU.
//
//   flipbook WIDTH HEIGHT FPS FILE      (FILE: WIDTH×HEIGHT×4 bytes a picture, e.g. from
//                                         ffmpeg -f lavfi -i testsrc2 -pix_fmt bgr0 -f rawvideo)
//   flipbook WIDTH HEIGHT FPS FILE once (the legibility benchmark's replay of a grabbed screen)
//
// With "once" the book is played one time, as the screen it was grabbed from changed: the first
// picture is shown and "ready" printed; a line on stdin starts the rest; each picture puts only the
// rows that differ from the one before (nothing when none do), so X reports the damage the real
// screen made; "done" is printed after the last, which stays on screen until this is stopped.
#define _GNU_SOURCE
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void tick(struct timespec *next, int fps) {  // sleeps until the next picture's moment
    next->tv_nsec += 1000000000L / fps;
    if (next->tv_nsec >= 1000000000L) {
        next->tv_sec += 1;
        next->tv_nsec -= 1000000000L;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL);
}

// Puts the rows of `picture` that differ from `before` (all of them when there is no before).
static void put_changes(Display *display, Window window, GC context, XImage *image, const unsigned char *before,
                        const unsigned char *picture, int width, int height) {
    size_t row = (size_t)width * 4;
    int first = 0, last = height - 1;
    if (before) {
        while (first < height && memcmp(before + first * row, picture + first * row, row) == 0)
            first++;
        if (first == height)
            return;  // nothing changed: nothing is put, as a still screen reports no damage
        while (memcmp(before + last * row, picture + last * row, row) == 0)
            last--;
    }
    memcpy(image->data + first * row, picture + first * row, (last - first + 1) * row);
    XShmPutImage(display, window, context, image, 0, first, 0, first, width, last - first + 1, False);
    XSync(display, False);
}

static int play_once(Display *display, Window window, GC context, XImage *image, const unsigned char *book,
                     long pictures, int width, int height, int fps) {
    size_t size = (size_t)width * height * 4;
    put_changes(display, window, context, image, NULL, book, width, height);
    printf("ready\n");
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin))
        return 1;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (long index = 1; index < pictures; index++) {
        tick(&next, fps);
        put_changes(display, window, context, image, book + (index - 1) * size, book + index * size, width, height);
    }
    printf("done\n");
    fflush(stdout);
    for (;;)
        pause();
}

int main(int argc, char **argv) {
    int once = argc == 6 && strcmp(argv[5], "once") == 0;
    if (argc != 5 && !once) {
        fprintf(stderr, "usage: flipbook WIDTH HEIGHT FPS FILE [once]\n");
        return 2;
    }
    int width = atoi(argv[1]), height = atoi(argv[2]), fps = atoi(argv[3]);
    size_t size = (size_t)width * height * 4;
    int file = open(argv[4], O_RDONLY);
    struct stat status;
    if (file < 0 || fstat(file, &status) != 0 || status.st_size < (off_t)size) {
        fprintf(stderr, "flipbook: %s holds no %dx%d picture\n", argv[4], width, height);
        return 2;
    }
    long pictures = status.st_size / size;
    const unsigned char *book = mmap(NULL, pictures * size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, file, 0);
    Display *display = XOpenDisplay(NULL);
    if (book == MAP_FAILED || !display || !XShmQueryExtension(display)) {
        fprintf(stderr, "flipbook: no pictures, no display, or no MIT-SHM\n");
        return 1;
    }
    int screen = DefaultScreen(display);
    XSetWindowAttributes attributes = {.override_redirect = True};
    Window window = XCreateWindow(display, RootWindow(display, screen), 0, 0, width, height, 0, CopyFromParent,
                                  InputOutput, CopyFromParent, CWOverrideRedirect, &attributes);
    XStoreName(display, window, "testsrc2 flipbook");
    XMapRaised(display, window);
    XShmSegmentInfo shared;
    XImage *image = XShmCreateImage(display, DefaultVisual(display, screen), DefaultDepth(display, screen), ZPixmap,
                                    NULL, &shared, width, height);
    if (image->bytes_per_line != width * 4) {
        fprintf(stderr, "flipbook: the screen is not 32 bits a pixel\n");
        return 1;
    }
    shared.shmid = shmget(IPC_PRIVATE, (size_t)image->bytes_per_line * height, IPC_CREAT | 0600);
    shared.shmaddr = image->data = shmat(shared.shmid, NULL, 0);
    shared.readOnly = True;
    XShmAttach(display, &shared);
    XSync(display, False);
    shmctl(shared.shmid, IPC_RMID, NULL);  // gone with the last detach, even if this is killed
    GC context = XCreateGC(display, window, 0, NULL);
    if (once)
        return play_once(display, window, context, image, book, pictures, width, height, fps);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (long index = 0;; index++) {
        memcpy(image->data, book + (index % pictures) * size, size);
        XShmPutImage(display, window, context, image, 0, 0, 0, 0, width, height, False);
        XSync(display, False);  // drawn before the image is written again
        tick(&next, fps);
    }
}
