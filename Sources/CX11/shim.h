#ifndef ONAIR_CX11_SHIM_H
#define ONAIR_CX11_SHIM_H

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xatom.h>
#include <X11/extensions/XShm.h>
#include <X11/extensions/Xfixes.h>
#include <X11/extensions/Xdamage.h>
#include <sys/ipc.h>
#include <sys/shm.h>

/// `AllPlanes` is a macro of a cast expression, which Swift does not import.
static const unsigned long CX11_AllPlanes = AllPlanes;

/// `XDestroyImage` is a macro calling through the image's function table.
static inline int CX11_destroyImage(XImage *image) { return XDestroyImage(image); }

/// The event number of DamageNotify for a display: the extension's event base plus `XDamageNotify`.
static inline int CX11_damageNotify(int eventBase) { return eventBase + XDamageNotify; }

/// Xlib reports protocol errors through a process-wide handler that would exit by default;
/// this one records the last error code instead (read and cleared with `CX11_takeError`).
static int CX11_lastError = 0;
static inline int CX11_recordError(Display *display, XErrorEvent *event) {
    (void)display;
    CX11_lastError = event->error_code;
    return 0;
}
static inline void CX11_installErrorHandler(void) { XSetErrorHandler(CX11_recordError); }
static inline int CX11_takeError(void) { int code = CX11_lastError; CX11_lastError = 0; return code; }

/// When the connection to the X server breaks, Xlib calls the I/O error handler, then an exit
/// handler that by default ends the process. These record the loss in `*lost` instead and
/// return: every later call on that display then fails at once, and the capture can reconnect.
static inline int CX11_quietIOError(Display *display) { (void)display; return 0; }
static inline void CX11_markLost(Display *display, void *lost) { (void)display; *(volatile int *)lost = 1; }
static inline void CX11_watchConnection(Display *display, int *lost) {
    XSetIOErrorHandler(CX11_quietIOError);
    XSetIOErrorExitHandler(display, CX11_markLost, lost);
}

#endif
