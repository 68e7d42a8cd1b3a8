// The benchmarks' animated screen: a loop of raw BGRX pictures shown over the whole X screen at a
// steady rate, each put through MIT-SHM in one request. It costs a few per cent of a core, where
// ffplay making testsrc2 at 1920x1080 and drawing it through SDL took most of one of the
// machine's two, and so left the publishers measured beside it short of CPU.
//
//   flipbook WIDTH HEIGHT FPS FILE      (FILE: WIDTH×HEIGHT×4 bytes a picture, e.g. from
//                                         ffmpeg -f lavfi -i testsrc2 -pix_fmt bgr0 -f rawvideo)
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

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: flipbook WIDTH HEIGHT FPS FILE\n");
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
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (long index = 0;; index++) {
        memcpy(image->data, book + (index % pictures) * size, size);
        XShmPutImage(display, window, context, image, 0, 0, 0, 0, width, height, False);
        XSync(display, False);  // drawn before the image is written again
        next.tv_nsec += 1000000000L / fps;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_sec += 1;
            next.tv_nsec -= 1000000000L;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
}
