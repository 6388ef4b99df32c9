#define _GNU_SOURCE
#include "CQuic.h"

ngtcp2_ssize cquic_conn_writev_stream(ngtcp2_conn *conn, ngtcp2_path *path, ngtcp2_pkt_info *pi,
                                      uint8_t *dest, size_t destlen, ngtcp2_ssize *pdatalen,
                                      uint32_t flags, int64_t stream_id, const ngtcp2_vec *datav,
                                      size_t datavcnt, ngtcp2_tstamp ts) {
    return ngtcp2_conn_writev_stream(conn, path, pi, dest, destlen, pdatalen, flags, stream_id,
                                     datav, datavcnt, ts);
}

ngtcp2_ssize cquic_conn_writev_datagram(ngtcp2_conn *conn, ngtcp2_path *path, ngtcp2_pkt_info *pi,
                                        uint8_t *dest, size_t destlen, int *paccepted,
                                        uint32_t flags, uint64_t dgram_id,
                                        const ngtcp2_vec *datav, size_t datavcnt,
                                        ngtcp2_tstamp ts) {
    return ngtcp2_conn_writev_datagram(conn, path, pi, dest, destlen, paccepted, flags, dgram_id,
                                       datav, datavcnt, ts);
}

int cquic_conn_read_pkt(ngtcp2_conn *conn, const ngtcp2_path *path, const ngtcp2_pkt_info *pi,
                        const uint8_t *pkt, size_t pktlen, ngtcp2_tstamp ts) {
    return ngtcp2_conn_read_pkt(conn, path, pi, pkt, pktlen, ts);
}

ngtcp2_ssize cquic_conn_write_connection_close(ngtcp2_conn *conn, ngtcp2_path *path,
                                               ngtcp2_pkt_info *pi, uint8_t *dest, size_t destlen,
                                               const ngtcp2_connection_close_error *ccerr,
                                               ngtcp2_tstamp ts) {
    return ngtcp2_conn_write_connection_close(conn, path, pi, dest, destlen, ccerr, ts);
}

void cquic_settings_default(ngtcp2_settings *settings) { ngtcp2_settings_default(settings); }

void cquic_transport_params_default(ngtcp2_transport_params *params) {
    ngtcp2_transport_params_default(params);
}

void cquic_conn_get_conn_stat(ngtcp2_conn *conn, ngtcp2_conn_stat *cstat) {
    ngtcp2_conn_get_conn_stat(conn, cstat);
}
