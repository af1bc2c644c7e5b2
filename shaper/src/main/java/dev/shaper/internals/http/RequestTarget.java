package dev.shaper.internals.http;

/** The path of a request target as sent, still percent-encoded: decoding is each endpoint's business. */
final class RequestTarget {

    private RequestTarget() {
    }

    /**
     * The path of {@code target} (origin form, or absolute form as sent to proxies) without the query, or null
     * when it has none ({@code *}, or not a URL at all).
     */
    static String path(String target) {
        String path = target;
        if (target.startsWith("http://") || target.startsWith("https://")) {
            int slash = target.indexOf('/', target.indexOf("//") + 2);
            path = slash < 0 ? "/" : target.substring(slash);
        }
        if (!path.startsWith("/")) {
            return null;
        }
        int query = path.indexOf('?');
        return query < 0 ? path : path.substring(0, query);
    }
}
