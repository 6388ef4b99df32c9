#ifndef CHIREDIS_H
#define CHIREDIS_H

// The whole C surface RedisClient sees: hiredis 0.14's RESP reader (commands are encoded in Swift), never
// its connection or async layers (docs/CLUSTER.md says why). Sockets are ours, on our epoll loop.
#include <hiredis/hiredis.h>
#include <hiredis/read.h>
#include <stddef.h>
#include <stdint.h>

// A RESP2 reader whose replies are bounded: at most `max_elements` elements in any one array and
// at most `max_reply_bytes` for one reply (its strings plus 16 bytes per element while it is
// built, and the bytes buffered while it is incomplete). hiredis itself bounds nesting at 7
// levels. A reply over a limit stops the reader with `limit_exceeded` set; the connection is then
// unusable, as after any protocol error.
typedef struct chiredis_reader chiredis_reader;

chiredis_reader *chiredis_reader_new(size_t max_elements, size_t max_reply_bytes);
void chiredis_reader_free(chiredis_reader *reader);
// 0 when fed; -1 when the reader had already failed.
int chiredis_reader_feed(chiredis_reader *reader, const uint8_t *bytes, size_t count);
// 1 with *reply set (free it with freeReplyObject), 0 when more bytes are needed, -1 on error.
int chiredis_reader_next(chiredis_reader *reader, redisReply **reply);
// Why the reader failed ("" when it did not).
const char *chiredis_reader_error(const chiredis_reader *reader);
// 1 when the failure was one of the limits above rather than malformed input.
int chiredis_reader_limit_exceeded(const chiredis_reader *reader);

#endif
