#ifndef STRBUF_H
#define STRBUF_H
#include <stddef.h>

struct strbuf {
    char *buf;
    size_t len;
    size_t cap;
};

int strbuf_append(struct strbuf *sb, const char *s, size_t n);
void strbuf_release(struct strbuf *sb);

#endif
