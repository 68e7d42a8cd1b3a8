// Fetching: a session id for this player, a GET with a time limit, a pause.

/** A string of random letters and digits that tells this player apart on the server. */
export function newSession() {
    const bytes = new Uint8Array(8);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function sleep(seconds) {
    return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

/** GET with a time limit; resolves to the response, rejects on a network error or timeout. */
export async function get(url, seconds) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), seconds * 1000);
    try {
        return await fetch(url, { cache: "no-store", signal: controller.signal });
    } finally {
        clearTimeout(timer);
    }
}
