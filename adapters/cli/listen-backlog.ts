/**
 * Connections the kernel may queue for a server before it accepts them (capped by
 * `net.core.somaxconn`), for `listen({ backlog })`. Node's default, 511, is less than a burst of
 * clients arriving at once: the kernel then drops their SYNs, and each waits for its retransmission
 * (1 s, then 3 s, …), or gives up with a connect timeout while the server is busy.
 */
export const LISTEN_BACKLOG = 4096;
