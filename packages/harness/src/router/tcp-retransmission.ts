import type { Micros } from "@kcsim/protocol";

/**
 * When Linux's TCP sends held bytes again. A segment that gets no
 * acknowledgement is retransmitted after the retransmission timeout (RTO),
 * which doubles at each try (exponential backoff) up to TCP_RTO_MAX:
 * - data and FIN: the RTO of a connection with an RTT sample, at least
 *   TCP_RTO_MIN, 200 ms (on a LAN's sub-millisecond RTT, exactly that);
 * - SYN and SYN-ACK: TCP_TIMEOUT_INIT, 1 s (RFC 6298; tcp_connect_init for
 *   the client's SYN, the request socket's timer for the server's SYN-ACK):
 *   the handshake has no RTT sample yet. A SYN held by a partition is sent
 *   again 1, 3, 7, 15, 31 s after the first one. The kernel gives a
 *   handshake up after net.ipv4.tcp_syn_retries (6) retransmissions of a
 *   SYN, tcp_synack_retries (5) of a SYN-ACK: the last SYN goes 63 s after
 *   the first, the last SYN-ACK 31 s after it.
 */
export const RTO_MIN_US: Micros = 200_000;
export const TIMEOUT_INIT_US: Micros = 1_000_000;
const RTO_MAX_US: Micros = 120_000_000;

/**
 * The first retransmission later than `after` of a segment first sent at `sentAt` (backing off from `firstRtoUs`,
 * TCP_RTO_MIN unless given) for which `getsThrough` holds: the one that is not lost on its way (and, when the
 * caller asks for it, whose acknowledgement is not lost either). Nothing changes after `lastChangeAt` (the last
 * heal): if that retransmission does not get through, none ever does, and the answer is Infinity.
 */
export function retransmissionThrough(
  sentAt: Micros,
  after: Micros,
  getsThrough: (at: Micros) => boolean,
  lastChangeAt: Micros,
  firstRtoUs: Micros = RTO_MIN_US,
): Micros {
  let t = sentAt;
  let rto = firstRtoUs;
  for (;;) {
    t += rto;
    rto = Math.min(rto * 2, RTO_MAX_US);
    if (t <= after) continue;
    if (getsThrough(t)) return t;
    if (t >= lastChangeAt) return Number.POSITIVE_INFINITY;
  }
}

/** Linux's defaults of net.ipv4.tcp_syn_retries and tcp_synack_retries. */
const SYN_RETRIES = 6;
const SYNACK_RETRIES = 5;

/** How long after its first transmission a SYN (or a SYN-ACK) is last retransmitted: (2^retries - 1) x TCP_TIMEOUT_INIT. */
export const LAST_SYN_US: Micros = ((1 << SYN_RETRIES) - 1) * TIMEOUT_INIT_US;
export const LAST_SYNACK_US: Micros = ((1 << SYNACK_RETRIES) - 1) * TIMEOUT_INIT_US;
