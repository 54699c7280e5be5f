#include <stdlib.h>
#include <string.h>
#include "strbuf.h"

/* Grows the buffer so that it can hold at least `extra` more bytes. */
static int strbuf_grow(struct strbuf *sb, size_t extra)
{
    size_t want = sb->len + extra + 1;
    if (want <= sb->cap)
        return 0;
    size_t cap = sb->cap ? sb->cap * 2 : 16;
    while (cap < want)
        cap *= 2;
    char *p = realloc(sb->buf, cap);
    if (!p)
        return -1;
    sb->buf = p;
    sb->cap = cap;
    return 0;
}

/**
 * Appends n bytes of s to the buffer, keeping it NUL-terminated.
 * Returns 0 on success and -1 when memory runs out.
 */
int strbuf_append(struct strbuf *sb, const char *s, size_t n)
{
    if (strbuf_grow(sb, n) < 0)
        return -1;
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
    return 0;
}

// Frees the buffer's memory and leaves it empty and reusable.
void strbuf_release(struct strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}
