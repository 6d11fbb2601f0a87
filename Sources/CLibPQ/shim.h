#ifndef TRELLIS_CLIBPQ_SHIM_H
#define TRELLIS_CLIBPQ_SHIM_H

/* libpq, PostgreSQL's C client library (https://www.postgresql.org/docs/15/libpq.html).
 * Debian: libpq-dev (pkg-config libpq, headers in /usr/include/postgresql). */
#include <libpq-fe.h>

#endif
