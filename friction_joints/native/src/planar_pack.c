/* planar_pack.c: the one packer of the planar family's model arrays (fpar, ipar; their layout in the docstring
 * of friction_joints/planar/packing.py) from a flat description of the model (fj_planar_model,
 * planar_internal.h). planar/packing.py calls it through the binding for every PlanarModel and MinimalForm;
 * the native FMUs' assemblies (assembly_planar.c, assembly_dupont.c) call it at initialisation. The blocks are those of
 * planar.model.PlanarModel (M, h_ext, H, the Lipschitz constants of the joints), planar.tree.JointCoordinates
 * (rows1, rows2, q_index) and the workspace tables below.
 */
#include <stdio.h>
#include <string.h>

#include "planar_internal.h"
#include "planar_joints.h"

/* the dimensions of the workspace fields: the sizes n, m, l, k1, k, m2 of the model, n1 = n - k1,
 * ms = max(m, m2), ls = max(l, m2); rows only: mk = max(m2, k), cols = max(k1, l), kq = k + 5 and iq = 3 (the
 * box QP's scratch); ONE: a vector is one row */
enum { ONE, D_N, D_M, D_L, D_K1, D_K, D_M2, D_N1, D_MS, D_LS, D_MK, D_COLS, D_KQ, D_IQ, N_DIMS };
#define N_WIDTH_DIMS (D_LS + 1) /* the row width: the largest of n ... ls */

/* The fields of the float workspace (rows, cols), in the order of planar_internal.h's W_* enum. */
static const signed char WORK_FIELDS[][2] = {
    /* the minimal form at (q, u, tau) (MinimalForm.kinematics, linear_terms): x, xdot, qdot, C, C_mu, xi, D1,
     * D2, nu2, D = D1 D2, gamma, sd, h, the Cholesky factor of M'', h'', Cpp, f0, B */
    {ONE, D_N}, {ONE, D_N}, {ONE, D_K1}, {D_M, D_N}, {D_L, D_N}, {ONE, D_M}, {D_N, D_K1}, {D_K1, D_K}, {ONE, D_K1},
    {D_N, D_K}, {ONE, D_N}, {ONE, D_L}, {ONE, D_N}, {D_K, D_K}, {ONE, D_K}, {D_L, D_K}, {ONE, D_M}, {D_M, D_L},
    /* their scratch: A = C1 on the coordinates of x that q does not give and its LU, V and its LU, C2', U,
     * D1dot qdot, xi2', M''^-1 h'', M''^-1 Cpp^T, w, W and C C^T of f0 = (C C^T)^-1 C w, B = (C C^T)^-1 C W */
    {D_N1, D_N1}, {D_M2, D_M2}, {D_M2, D_K1}, {D_M2, D_K}, {ONE, D_N}, {ONE, D_M2}, {ONE, D_K}, {D_K, D_L},
    {ONE, D_N}, {D_N, D_L}, {D_M, D_M},
    /* an evaluation: f, f_mu, udot; friction directions (the mode's with the stuck contacts off, the base and
     * trial directions of the Sect. 5 test, the scaled ones), static limits, ones */
    {ONE, D_M}, {ONE, D_L}, {ONE, D_K}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L},
    /* the Newton iteration and the sign-pattern search */
    {D_L, D_M}, {D_L, D_M}, {ONE, D_M}, {ONE, D_L}, {ONE, D_M}, {ONE, D_M}, {ONE, D_M}, {ONE, D_M}, {ONE, D_M},
    {D_L, D_L}, {ONE, D_L}, {ONE, D_M}, {ONE, D_M}, {ONE, D_L},
    /* the stuck elimination (r = |S| <= l rows used): P, W, b0, lambda, f0 and B with lambda eliminated */
    {D_L, D_L}, {D_L, D_L}, {ONE, D_L}, {ONE, D_L}, {ONE, D_M}, {D_M, D_L},
    /* singular values (kappa of the coupled solve, cond(V)): the matrix rotated, its column norms */
    {D_MS, D_LS}, {ONE, D_LS},
    /* the mode decision: row norms of Cpp, friction directions (floats), QR with column pivoting (the matrix,
     * its column norms and their downdates, |R_ii|), q moved off a kinematic zero and the velocity it moves
     * along, the Gauss problem (A = L^-1 Cpp[Z]^T, b, lambda and its update, slip accelerations, static
     * limits, the friction of Z fixed in the coupled solve, the box QP's scratch) */
    {ONE, D_L}, {ONE, D_L}, {D_MK, D_COLS}, {ONE, D_COLS}, {ONE, D_COLS}, {ONE, D_COLS}, {ONE, D_K1}, {ONE, D_K},
    {D_K, D_L}, {ONE, D_K}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L}, {D_KQ, D_L},
    /* the memo of the minimal form's terms (planar.c's memo_*): the q and u of the terms in the workspace,
     * the applied forces h of a new evaluation, the friction directions of its slip evaluation; the
     * (cos, sin) of the bodies' angles at x (planar.c's rotations_of); the friction coefficients of a coupled
     * solve (planar.c's friction_coefficients); the reactions of planar_bristle.c's last rhs (where its
     * rhs_near starts the coupled solve) */
    {ONE, D_K1}, {ONE, D_K}, {ONE, D_N}, {ONE, D_L}, {ONE, D_N}, {ONE, D_L}, {ONE, D_M},
};

/* The fields of the int workspace, in the order of the WI_* enum: pivots of A, V, the Newton matrix, W, the
 * lock rows; static flags; the mode decision: QR pivots, friction directions (new, old), the contacts at
 * zero slip, Z, at a kinematic zero, stuck (old, new), independent rows, a partition, the box QP's scratch; the
 * memo's flags; the columns of the rows of C and C_mu. */
static const signed char IWORK_FIELDS[][2] = {
    {ONE, D_N1}, {ONE, D_M2}, {ONE, D_L}, {ONE, D_L}, {ONE, D_K}, {ONE, D_L}, {ONE, D_L},
    {ONE, D_COLS}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L}, {ONE, D_L},
    {ONE, D_K}, {D_IQ, D_L},
    {ONE, D_N}, {ONE, D_K}, /* the memo: its flags and sign (2 <= n), the partition of its terms */
    {ONE, D_M}, {ONE, D_M}, {ONE, D_L}, {ONE, D_L}, /* the columns of the rows of C and C_mu (planar.c's row_spans) */
};

#define N_WORK ((int64_t)(sizeof WORK_FIELDS / sizeof WORK_FIELDS[0]))
#define N_IWORK ((int64_t)(sizeof IWORK_FIELDS / sizeof IWORK_FIELDS[0]))
enum { BODY_WIDTH = 5, JOINT_TYPE_WIDTH = 3, DRIVE_WIDTH = 3 }; /* fj_planar_model's rows */

/* The table (first row, rows, cols) of each field into table (3 n_fields, may be NULL); the number of rows. */
static int64_t layout(const signed char (*fields)[2], int64_t n_fields, const int64_t *dims, int64_t *table) {
    int64_t row = 0;
    for (int64_t f = 0; f < n_fields; f++) {
        int64_t rows = dims[fields[f][0]];
        if (table) table[3 * f] = row, table[3 * f + 1] = rows, table[3 * f + 2] = dims[fields[f][1]];
        row += rows;
    }
    return row;
}

static int64_t fail(char *error, size_t n_error, const char *what) {
    if (error != NULL && n_error > 0) snprintf(error, n_error, "the planar model does not fit: %s", what);
    return 1;
}

static int64_t max2(int64_t a, int64_t b) { return a > b ? a : b; }

/* The type of joint j of the model (its code checked by fj_planar_pack). */
static const fj_planar_joint_type *type_of(const fj_planar_model *d, int64_t j) {
    return fj_planar_joint_type_of(d->joint_types[JOINT_TYPE_WIDTH * j]);
}

int64_t fj_planar_pack(const fj_planar_model *d, double *fpar, int64_t *n_fpar, int64_t *ipar, int64_t *n_ipar,
                       char *error, size_t n_error) {
    int64_t b = d->n_bodies, nj = d->n_joints, nd = d->n_drives, k1 = d->n_tree, n = 3 * b, m = 0, l = 0, m1 = 0;
    if (b < 1 || nj < 0 || nd < 0 || k1 != b) return fail(error, n_error, "the tree must place each body once");
    for (int64_t j = 0; j < nj; j++) {
        const int64_t *jt = d->joint_types + JOINT_TYPE_WIDTH * j;
        const fj_planar_joint_type *type = fj_planar_joint_type_of(jt[0]);
        if (type == NULL) return fail(error, n_error, "a joint's type (unknown code)");
        if (jt[1] < 1 || jt[1] > b || jt[2] < 0 || jt[2] > b) return fail(error, n_error, "a joint's bodies");
        m += type->n_z, l += type->n_s;
    }
    for (int64_t t = 0; t < k1; t++) {
        int64_t j = d->tree[2 * t], axis = d->tree[2 * t + 1];
        if (j < 0 || j >= nj || axis < 0 || axis > 2) return fail(error, n_error, "a tree joint or its axis");
        const fj_planar_joint_type *type = type_of(d, j);
        if (type->place == NULL) return fail(error, n_error, "a tree joint of a type that places no body");
        m1 += type->n_z;
    }
    for (int64_t c = 0; c < l; c++)
        if (d->law_kinds[c] < NO_LAW || d->law_kinds[c] > TANH) return fail(error, n_error, "a friction law's kind");
    for (int64_t i = 0; i < nd; i++)
        if (d->drive_bodies[i] < 1 || d->drive_bodies[i] > b) return fail(error, n_error, "a drive's body");
    int64_t m2 = m - m1, k = k1 - m2;
    if (m1 != n - k1 || k < 1) return fail(error, n_error, "the tree's rows (n - k1 of them, k >= 1)");
    for (int64_t i = 0; i < k; i++)
        if (d->partition[i] < 0 || d->partition[i] >= k1) return fail(error, n_error, "the partition");
    int64_t n_contacts = 0;
    for (int64_t c = 0; c < l; c++) n_contacts += d->law_kinds[c] != NO_LAW;

    /* sizes (planar/packing.py's docstring): the ipar blocks after the header, the fpar blocks */
    const int64_t iblocks[] = {JI_WIDTH * nj, 2 * k1, n - k1, m2, n_contacts, l, k1, n - k1, 3 * N_WORK,
                               3 * N_IWORK, k};
    const int64_t islots[] = {I_JOINTS, I_TREE, I_ROWS1, I_ROWS2, I_CONTACTS, I_LAWS, I_XQ, I_XO, I_WORK, I_IWORK,
                              I_PARTITION};
    const int64_t fblocks[] = {n, n, n * nd, 2, b, l, JF_WIDTH * nj, LAW_WIDTH * l};
    const int64_t fslots[] = {I_F_MASS, I_F_HEXT, I_F_H, I_F_GRAV, I_F_BODY_MASS, I_F_LIP, I_F_JOINTS, I_F_LAWS};
    int64_t size_i = HEADER, size_f = 0;
    for (size_t i = 0; i < sizeof iblocks / sizeof iblocks[0]; i++) size_i += iblocks[i];
    for (size_t i = 0; i < sizeof fblocks / sizeof fblocks[0]; i++) size_f += fblocks[i];
    if (fpar == NULL || ipar == NULL) {
        *n_fpar = size_f, *n_ipar = size_i;
        return 0;
    }
    if (*n_fpar != size_f || *n_ipar != size_i) return fail(error, n_error, "the sizes of fpar and ipar");

    /* ipar: the header, then its blocks */
    memset(ipar, 0, (size_t)size_i * sizeof *ipar);
    int64_t o = HEADER;
    for (size_t i = 0; i < sizeof iblocks / sizeof iblocks[0]; i++) ipar[islots[i]] = o, o += iblocks[i];
    o = 0;
    for (size_t i = 0; i < sizeof fblocks / sizeof fblocks[0]; i++) ipar[fslots[i]] = o, o += fblocks[i];
    const int64_t dims[N_DIMS] = {1, n, m, l, k1, k, m2, n - k1, max2(m, m2), max2(l, m2), max2(m2, k), max2(k1, l),
                                  k + 5, 3};
    int64_t width = 0;
    for (int i = D_N; i < N_WIDTH_DIMS; i++) width = max2(width, dims[i]);
    const int64_t header[][2] = {{I_N, n}, {I_M, m}, {I_L, l}, {I_K1, k1}, {I_K, k}, {I_M2, m2}, {I_NB, b},
                                 {I_NJ, nj}, {I_ND, nd}, {I_NC, n_contacts}, {I_WIDTH, width},
                                 {I_REGULARISED, d->regularised != 0}};
    for (size_t i = 0; i < sizeof header / sizeof header[0]; i++) ipar[header[i][0]] = header[i][1];
    ipar[I_WORK_ROWS] = layout(WORK_FIELDS, N_WORK, dims, ipar + ipar[I_WORK]);
    ipar[I_IWORK_ROWS] = layout(IWORK_FIELDS, N_IWORK, dims, ipar + ipar[I_IWORK]);
    int64_t *z_first = ipar + ipar[I_JOINTS]; /* the joints' rows of z and indices of s (PlanarModel.z_slices) */
    for (int64_t j = 0, z = 0, s = 0; j < nj; j++) {
        const int64_t *jt = d->joint_types + JOINT_TYPE_WIDTH * j;
        int64_t *row = z_first + JI_WIDTH * j;
        const fj_planar_joint_type *type = type_of(d, j);
        row[JI_TYPE] = jt[0], row[JI_BODY_I] = jt[1], row[JI_BODY_J] = jt[2], row[JI_Z] = z;
        row[JI_NZ] = type->n_z, row[JI_S] = s, row[JI_NS] = type->n_s;
        row[JI_EDGE] = d->joints[JF_WIDTH * j + JF_EDGE] > 0.0;
        z += type->n_z, s += type->n_s;
    }
    int64_t *rows1 = ipar + ipar[I_ROWS1], *rows2 = ipar + ipar[I_ROWS2], *xq = ipar + ipar[I_XQ];
    int64_t *xo = ipar + ipar[I_XO], n1 = 0, n2 = 0, n_o = 0;
    for (int64_t t = 0; t < k1; t++) { /* JointCoordinates: rows1 in tree order, q_index */
        int64_t j = d->tree[2 * t], *row = z_first + JI_WIDTH * j;
        ipar[ipar[I_TREE] + 2 * t] = j, ipar[ipar[I_TREE] + 2 * t + 1] = d->tree[2 * t + 1];
        for (int64_t r = 0; r < row[JI_NZ]; r++) rows1[n1++] = row[JI_Z] + r;
        xq[t] = 3 * (row[JI_BODY_I] - 1) + d->tree[2 * t + 1];
    }
    for (int64_t j = 0; j < nj; j++) { /* the closing joints' rows, in joint order */
        int64_t in_tree = 0, *row = z_first + JI_WIDTH * j;
        for (int64_t t = 0; t < k1; t++) in_tree |= d->tree[2 * t] == j;
        for (int64_t r = 0; !in_tree && r < row[JI_NZ]; r++) rows2[n2++] = row[JI_Z] + r;
    }
    for (int64_t i = 0; i < n; i++) { /* the other coordinates of x, ascending */
        int64_t is_q = 0;
        for (int64_t t = 0; t < k1; t++) is_q |= xq[t] == i;
        if (!is_q) {
            if (n_o == n - k1) return fail(error, n_error, "the tree's coordinates of x (each once)");
            xo[n_o++] = i;
        }
    }
    if (n_o != n - k1) return fail(error, n_error, "the tree's coordinates of x (each once)");
    for (int64_t c = 0, i = 0; c < l; c++) {
        ipar[ipar[I_LAWS] + c] = d->law_kinds[c];
        if (d->law_kinds[c] != NO_LAW) ipar[ipar[I_CONTACTS] + i++] = c;
    }
    for (int64_t i = 0; i < k; i++) ipar[ipar[I_PARTITION] + i] = d->partition[i];

    /* fpar: diag(M), h_ext, H, gravity, masses, Lipschitz constants, joints, laws (PlanarModel) */
    memset(fpar, 0, (size_t)size_f * sizeof *fpar);
    const double *g = d->gravity;
    for (int64_t i = 0; i < b; i++) {
        const double *body = d->bodies + BODY_WIDTH * i;
        double *M = fpar + ipar[I_F_MASS] + 3 * i, *h = fpar + ipar[I_F_HEXT] + 3 * i;
        M[0] = body[0], M[1] = body[0], M[2] = body[1]; /* M = diag(m_i, m_i, J_i) (seed 000 eq. 6.1) */
        h[0] = body[0] * g[0] + body[2], h[1] = body[0] * g[1] + body[3], h[2] = body[4];
        fpar[ipar[I_F_BODY_MASS] + i] = body[0];
    }
    for (int64_t i = 0; i < nd; i++) /* H (n x n_drives): column i the generalized force of drive i */
        for (int64_t c = 0; c < 3; c++)
            fpar[ipar[I_F_H] + (3 * (d->drive_bodies[i] - 1) + c) * nd + i] = d->drives[DRIVE_WIDTH * i + c];
    fpar[ipar[I_F_GRAV]] = g[0], fpar[ipar[I_F_GRAV] + 1] = g[1];
    for (int64_t j = 0, s = 0; j < nj; j++) { /* each free coordinate of a joint: the joint's constant */
        const fj_planar_joint_type *type = type_of(d, j);
        double L = type->lipschitz(d->joints + JF_WIDTH * j, d->law_kinds + s, d->laws + LAW_WIDTH * s);
        for (int64_t c = 0; c < type->n_s; c++) fpar[ipar[I_F_LIP] + s + c] = L;
        s += type->n_s;
    }
    memcpy(fpar + ipar[I_F_JOINTS], d->joints, (size_t)(JF_WIDTH * nj) * sizeof *fpar);
    memcpy(fpar + ipar[I_F_LAWS], d->laws, (size_t)(LAW_WIDTH * l) * sizeof *fpar);
    return 0;
}
