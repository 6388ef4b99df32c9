#include "CHiredis.h"
#include <stdlib.h>
#include <string.h>

struct chiredis_reader {
    redisReader *reader;
    redisReplyObjectFunctions *defaults;
    redisReplyObjectFunctions bounded;
    size_t max_elements;
    size_t max_reply_bytes;
    size_t reply_bytes;   // what the reply under construction holds so far
    int limit_exceeded;
    char limit_message[96];
};

// Counts `bytes` towards the reply under construction; 0 and the reader's error when over.
static int charge(chiredis_reader *bounded, size_t bytes, const char *what) {
    if (bytes > bounded->max_reply_bytes || bounded->reply_bytes > bounded->max_reply_bytes - bytes) {
        bounded->limit_exceeded = 1;
        snprintf(bounded->limit_message, sizeof bounded->limit_message,
                 "reply larger than %zu bytes (%s)", bounded->max_reply_bytes, what);
        return 0;
    }
    bounded->reply_bytes += bytes;
    return 1;
}

// The reader hands every task its privdata: ours is the bounded reader itself.
static chiredis_reader *owner(const redisReadTask *task) { return (chiredis_reader *)task->privdata; }

static void *bounded_string(const redisReadTask *task, char *text, size_t length) {
    chiredis_reader *bounded = owner(task);
    if (!charge(bounded, length + 16, "string")) return NULL;
    return bounded->defaults->createString(task, text, length);
}

static void *bounded_array(const redisReadTask *task, int elements) {
    chiredis_reader *bounded = owner(task);
    if (elements > 0 && (size_t)elements > bounded->max_elements) {
        bounded->limit_exceeded = 1;
        snprintf(bounded->limit_message, sizeof bounded->limit_message,
                 "array of %d elements, more than %zu", elements, bounded->max_elements);
        return NULL;
    }
    if (!charge(bounded, (size_t)(elements > 0 ? elements : 0) * 16 + 16, "array")) return NULL;
    return bounded->defaults->createArray(task, elements);
}

static void *bounded_integer(const redisReadTask *task, long long value) {
    if (!charge(owner(task), 16, "integer")) return NULL;
    return owner(task)->defaults->createInteger(task, value);
}

static void *bounded_nil(const redisReadTask *task) {
    if (!charge(owner(task), 16, "nil")) return NULL;
    return owner(task)->defaults->createNil(task);
}

chiredis_reader *chiredis_reader_new(size_t max_elements, size_t max_reply_bytes) {
    chiredis_reader *bounded = calloc(1, sizeof *bounded);
    if (bounded == NULL) return NULL;
    bounded->reader = redisReaderCreate();
    if (bounded->reader == NULL) {
        free(bounded);
        return NULL;
    }
    // redisReaderCreate installs hiredis's own redisReply builders; ours wrap them.
    bounded->defaults = bounded->reader->fn;
    bounded->bounded = *bounded->defaults;
    bounded->bounded.createString = bounded_string;
    bounded->bounded.createArray = bounded_array;
    bounded->bounded.createInteger = bounded_integer;
    bounded->bounded.createNil = bounded_nil;
    bounded->reader->fn = &bounded->bounded;
    bounded->reader->privdata = bounded;
    bounded->max_elements = max_elements;
    bounded->max_reply_bytes = max_reply_bytes;
    return bounded;
}

void chiredis_reader_free(chiredis_reader *bounded) {
    if (bounded == NULL) return;
    redisReaderFree(bounded->reader);
    free(bounded);
}

int chiredis_reader_feed(chiredis_reader *bounded, const uint8_t *bytes, size_t count) {
    if (redisReaderFeed(bounded->reader, (const char *)bytes, count) != REDIS_OK) return -1;
    return 0;
}

int chiredis_reader_next(chiredis_reader *bounded, redisReply **reply) {
    void *object = NULL;
    *reply = NULL;
    if (redisReaderGetReply(bounded->reader, &object) != REDIS_OK) return -1;
    if (object != NULL) {
        bounded->reply_bytes = 0;
        *reply = object;
        return 1;
    }
    // Incomplete: the bytes still waiting for the rest of this reply count against it too (a
    // bulk string is only built once all of it arrived).
    redisReader *reader = bounded->reader;
    size_t waiting = reader->len - reader->pos;
    if (waiting > bounded->max_reply_bytes || bounded->reply_bytes > bounded->max_reply_bytes - waiting) {
        bounded->limit_exceeded = 1;
        snprintf(bounded->limit_message, sizeof bounded->limit_message,
                 "reply larger than %zu bytes (incomplete)", bounded->max_reply_bytes);
        reader->err = REDIS_ERR_OTHER;
        return -1;
    }
    return 0;
}

const char *chiredis_reader_error(const chiredis_reader *bounded) {
    if (bounded->limit_exceeded) return bounded->limit_message;
    return bounded->reader->err ? bounded->reader->errstr : "";
}

int chiredis_reader_limit_exceeded(const chiredis_reader *bounded) { return bounded->limit_exceeded; }
