// Waiting on a SourceBuffer: for it to be idle, and for one append or removal to finish.

/** Waits until a SourceBuffer has no operation under way. */
export async function idle(buffer) {
    while (buffer.updating) await new Promise((resolve) => buffer.addEventListener("updateend", resolve, { once: true }));
}

/** Waits for a SourceBuffer operation (append or remove) to finish. */
export function sourceBufferDone(buffer, start) {
    return new Promise((resolve, reject) => {
        const finish = (ok) => () => {
            buffer.removeEventListener("updateend", succeeded);
            buffer.removeEventListener("error", failed);
            ok ? resolve() : reject(new Error("the browser refused the media"));
        };
        const succeeded = finish(true);
        const failed = finish(false);
        buffer.addEventListener("updateend", succeeded);
        buffer.addEventListener("error", failed);
        try {
            start();
        } catch (error) {
            buffer.removeEventListener("updateend", succeeded);
            buffer.removeEventListener("error", failed);
            reject(error);
        }
    });
}
