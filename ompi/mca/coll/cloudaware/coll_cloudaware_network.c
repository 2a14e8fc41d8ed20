/*
 * What this process knows about the network: ONE store per process, shared by every
 * communicator. Matrices belong to the node set, not to a communicator: the store holds latency
 * and bandwidth for every ordered pair of hosts it has ever learnt (matrix file, cache entries,
 * calibrations), and a communicator takes the sub-matrix of its nodes from it. Only pairs the
 * store does not know are ever measured.
 *
 * Source files: coll_cloudaware_matrix_file is merged in on first use. A file that cannot be
 * used is reported once, in one line naming the file, the line and the problem, and ignored.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_cloudaware.h"
#include "coll_cloudaware_calibrate.h"
#include "core/cloudaware_core.h"

static cacore_matrix_t *network_matrix = NULL;   /* the matrix file as read */
static bool network_loaded = false;

/* The store: hosts[0..n) in insertion order; pair (i, j) at [i * cap + j]. */
static struct {
    int n, cap;
    char **hosts;
    double *lat, *bw;
    unsigned char *known;
} store;

static int store_find(const char *host)
{
    for (int i = 0; i < store.n; i++) {
        if (0 == strcmp(store.hosts[i], host)) {
            return i;
        }
    }
    return -1;
}

static int store_grow(int need)
{
    int cap = store.cap ? store.cap : 8;
    char **hosts;
    double *lat, *bw;
    unsigned char *known;

    if (need <= store.cap) {
        return OMPI_SUCCESS;
    }
    while (cap < need) {
        cap *= 2;
    }
    hosts = calloc((size_t) cap, sizeof(char *));
    lat = calloc((size_t) cap * cap, sizeof(double));
    bw = calloc((size_t) cap * cap, sizeof(double));
    known = calloc((size_t) cap * cap, 1);
    if (NULL == hosts || NULL == lat || NULL == bw || NULL == known) {
        free(hosts);
        free(lat);
        free(bw);
        free(known);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int i = 0; i < store.n; i++) {
        hosts[i] = store.hosts[i];
        for (int j = 0; j < store.n; j++) {
            lat[i * cap + j] = store.lat[i * store.cap + j];
            bw[i * cap + j] = store.bw[i * store.cap + j];
            known[i * cap + j] = store.known[i * store.cap + j];
        }
    }
    free(store.hosts);
    free(store.lat);
    free(store.bw);
    free(store.known);
    store.hosts = hosts;
    store.lat = lat;
    store.bw = bw;
    store.known = known;
    store.cap = cap;
    return OMPI_SUCCESS;
}

static int store_add(const char *host)
{
    int i = store_find(host);

    if (i >= 0) {
        return i;
    }
    if (OMPI_SUCCESS != store_grow(store.n + 1)) {
        return -1;
    }
    if (NULL == (store.hosts[store.n] = strdup(host))) {
        return -1;
    }
    return store.n++;
}

int mca_coll_cloudaware_network_merge(int n, char *const *hosts, const double *L, const double *B,
                                      const unsigned char *known)
{
    int *idx = malloc(sizeof(int) * (size_t) (n > 0 ? n : 1));

    if (NULL == idx) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int i = 0; i < n; i++) {
        if ((idx[i] = store_add(hosts[i])) < 0) {
            free(idx);
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            size_t s = (size_t) idx[i] * store.cap + idx[j];
            if (i == j || !known[i * n + j]) {
                continue;
            }
            store.lat[s] = L[i * n + j];
            store.bw[s] = B[i * n + j];
            store.known[s] = 1;
        }
    }
    free(idx);
    return OMPI_SUCCESS;
}

int mca_coll_cloudaware_network_lookup(int n, char *const *hosts, double *L, double *B,
                                       unsigned char *known)
{
    int count = 0;
    int *idx = malloc(sizeof(int) * (size_t) (n > 0 ? n : 1));

    memset(known, 0, (size_t) n * n);
    memset(L, 0, sizeof(double) * (size_t) n * n);
    memset(B, 0, sizeof(double) * (size_t) n * n);
    if (NULL == idx) {
        return 0;
    }
    (void) mca_coll_cloudaware_network_load_file();
    for (int i = 0; i < n; i++) {
        idx[i] = store_find(hosts[i]);
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            size_t s;
            if (i == j || idx[i] < 0 || idx[j] < 0) {
                continue;
            }
            s = (size_t) idx[i] * store.cap + idx[j];
            if (store.known[s]) {
                L[i * n + j] = store.lat[s];
                B[i * n + j] = store.bw[s];
                known[i * n + j] = 1;
                count++;
            }
        }
    }
    free(idx);
    return count;
}

bool mca_coll_cloudaware_network_load_file(void)
{
    return NULL != mca_coll_cloudaware_network_matrix();
}

const struct cacore_matrix *mca_coll_cloudaware_network_matrix(void)
{
    mca_coll_cloudaware_component_t *c = &mca_coll_cloudaware_component;
    char err[512];
    int n;

    if (network_loaded) {
        return network_matrix;
    }
    network_loaded = true;
    if (NULL == c->matrix_file || '\0' == c->matrix_file[0]) {
        return NULL;
    }
    if (CACORE_OK != cacore_matrix_read_file(c->matrix_file, &network_matrix, err, sizeof(err))) {
        /* One line per job, not one per process. */
        if (0 == ompi_comm_rank(&ompi_mpi_comm_world.comm)) {
            opal_output(0, "coll:cloudaware: ignoring coll_cloudaware_matrix_file: %s", err);
        }
        network_matrix = NULL;
        return NULL;
    }
    n = cacore_matrix_nodes(network_matrix);
    {
        char **hosts = calloc((size_t) n, sizeof(char *));
        double *L = calloc((size_t) n * n, sizeof(double));
        double *B = calloc((size_t) n * n, sizeof(double));
        unsigned char *known = calloc((size_t) n * n, 1);

        if (NULL != hosts && NULL != L && NULL != B && NULL != known) {
            for (int i = 0; i < n; i++) {
                hosts[i] = (char *) cacore_matrix_host(network_matrix, i);
                for (int j = 0; j < n; j++) {
                    L[i * n + j] = cacore_matrix_latency(network_matrix, i, j);
                    B[i * n + j] = cacore_matrix_bandwidth(network_matrix, i, j);
                    known[i * n + j] = (i != j);
                }
            }
            (void) mca_coll_cloudaware_network_merge(n, hosts, L, B, known);
        }
        free(hosts);
        free(L);
        free(B);
        free(known);
    }
    opal_output_verbose(CLOUDAWARE_VERBOSE_SELECT, c->output,
                        "coll:cloudaware: loaded matrix file %s (%d nodes)", c->matrix_file, n);
    return network_matrix;
}

void mca_coll_cloudaware_network_release(void)
{
    cacore_matrix_free(network_matrix);
    network_matrix = NULL;
    network_loaded = false;
    for (int i = 0; i < store.n; i++) {
        free(store.hosts[i]);
    }
    free(store.hosts);
    free(store.lat);
    free(store.bw);
    free(store.known);
    memset(&store, 0, sizeof(store));
}
