/* optmem.recall._scan: count the LOG.txt records that hold a literal, in one pass.
 *
 * An optional accelerator for recall's counts (optmem/recall/scancount.py holds
 * the plan, docs/recall.md the argument that the count is exact; this file
 * only finds bytes). Built by setup.py when a C compiler is present; without it recall
 * counts with CPython's own byte methods (optmem/recall/fastcount.py), more slowly,
 * with the same answers.
 *
 * count(data, width, needles, fold, composer, exceptions, method=0, rows=False)
 *   data        bytes-like: whole records of `width` bytes each.
 *   width       the record width in bytes (320 for LOG.txt), at least 2.
 *   needles     a sequence of (bytes, flags): 1 to MAX_NEEDLES literals of 1
 *               to MAX_NEEDLE_BYTES bytes, none holding a newline; flags bit
 *               1: a \b before it, bit 2: a \b after it.
 *   fold        true: ASCII letters compare case-insensitively (the needles
 *               are folded here, whatever case they are given in).
 *   composer    65,536 bytes: composer[(b1 << 8) | b2] is non-zero when a
 *               character whose UTF-8 starts with the bytes b1 b2 may change
 *               the character before it under NFC.
 *   exceptions  a sequence of (bytes, kind), at most MAX_EXCEPTIONS: a
 *               record that holds one is "maybe". Kind 0: anywhere; kind 1:
 *               where a character the composer table marks begins; kind 2:
 *               ending where such a character begins.
 *   method      how to look for the needles, for the tests: 0 (the default)
 *               chooses, 1 Horspool's shifts, 2 memchr on a rare byte of
 *               each needle (Horspool still where that needs over
 *               MAX_ANCHORS bytes). Every method gives the same answer.
 *   rows        true: give the certain records' indexes (a list), not
 *               their number.
 *
 * chain(data, width, stages, fold, composer, exceptions, rows=False)
 *   The same for literals in order (a pattern such as `cafe.*server`):
 *   stages is a sequence of 1 to MAX_STAGES (needles, gap), needles as
 *   above, gap 0 or 1: the bytes at least between the previous stage's
 *   occurrence and this one's (1 for `.+`; the first stage's is unused). A
 *   record is certain when the occurrences that end earliest, stage by
 *   stage, are all decided; maybe when one of them is not, or it holds an
 *   exception; else not a match (docs/recall.md, "A chain of literals").
 *   Returns as count does.
 *
 * Returns None unless every record ends in its only newline; False when
 * finding the needles would cost over WORK_PER_BYTE byte comparisons a byte
 * (the caller then counts another way); else (certain, maybe): how many
 * records hold an occurrence whose neighbours decide it (ASCII, or for a
 * needle with no \b after it, a following character that composes with
 * nothing), or their indexes when rows is true, and the indexes (ascending)
 * of the other records that hold an occurrence or an exception, which the
 * caller matches one by one. Raises ValueError for arguments out of these
 * bounds, TypeError for arguments of the wrong type. Reads only inside
 * `data`; allocates one byte a record; holds the GIL (nothing can change
 * its arguments while it reads them).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define MAX_NEEDLES 64
#define MAX_NEEDLE_BYTES 255
#define MAX_EXCEPTIONS 256
/* Byte comparisons a byte of data may cost before count gives up (False):
 * needles that overlap themselves (a 200-byte run of one letter, 37 ways)
 * would otherwise cost their total length at every byte. */
#define WORK_PER_BYTE 16
#define LEFT 1
#define RIGHT 2
#define ANYWHERE 0
#define AT_COMPOSER 1
#define BEFORE_COMPOSER 2

enum { NONE = 0, MAYBE = 1, CERTAIN = 2 };

typedef struct {
    const unsigned char *bytes;
    Py_ssize_t size;
    int flags;
} needle_t;

static unsigned char is_word[256];

/* 1: the occurrence at i (size bytes) matches whatever NFC does to the line;
 * 0: undecided (a non-ASCII neighbour); -1: a \b fails on an ASCII neighbour. */
static int
classify(const unsigned char *buf, Py_ssize_t len, Py_ssize_t start,
         Py_ssize_t i, Py_ssize_t size, int flags, const unsigned char *composer)
{
    int undecided = 0;
    unsigned char b;
    Py_ssize_t j = i + size;  /* < len: the record's last byte is a newline */

    if ((flags & LEFT) && i > start) {
        b = buf[i - 1];
        if (b >= 0x80)
            undecided = 1;
        else if (is_word[b])
            return -1;
    }
    b = j < len ? buf[j] : '\n';
    if (flags & RIGHT) {
        if (b >= 0x80)
            undecided = 1;
        else if (is_word[b])
            return -1;
    }
    else if (b >= 0x80) {
        unsigned char b2 = j + 1 < len ? buf[j + 1] : 0;
        if (composer[((unsigned)b << 8) | b2])
            undecided = 1;
    }
    return undecided ? 0 : 1;
}

/* The exceptions of one kind grouped by one of their bytes (the first for
 * kind 1, the last for kind 2): those keyed b are order[start[b]] up to
 * order[start[b + 1]]. */
typedef struct {
    Py_ssize_t start[257];
    Py_ssize_t order[MAX_EXCEPTIONS];
} buckets_t;

static void
fill_buckets(buckets_t *into, const needle_t *exceptions, Py_ssize_t n, int kind)
{
    Py_ssize_t k, b, at = 0;
    for (b = 0; b < 256; b++) {
        into->start[b] = at;
        for (k = 0; k < n; k++) {
            const needle_t *ex = &exceptions[k];
            unsigned char key = kind == AT_COMPOSER ? ex->bytes[0] : ex->bytes[ex->size - 1];
            if (ex->flags == kind && key == b)
                into->order[at++] = k;
        }
    }
    into->start[256] = at;
}

/* True if the record at start (width bytes, its last a newline) holds a
 * character the composer table marks where a kind 1 exception begins, or
 * right after a kind 2 exception. Skips ASCII eight bytes at a time, and at
 * each such character compares only the exceptions keyed by its first byte
 * (kind 1) or by the byte before it (kind 2). */
static int
composer_exception(const unsigned char *buf, Py_ssize_t start, Py_ssize_t width,
                   const unsigned char *composer, const needle_t *exceptions,
                   const buckets_t *at_buckets, const buckets_t *before_buckets)
{
    Py_ssize_t p = start, end = start + width - 1, k;
    while (p < end) {
        unsigned char b;
        while (p + 8 <= end) {
            unsigned long long word;
            memcpy(&word, buf + p, 8);
            if (word & 0x8080808080808080ULL)
                break;
            p += 8;
        }
        while (p < end && buf[p] < 0x80)
            p++;
        if (p >= end)
            break;
        b = buf[p];
        if (composer[((unsigned)b << 8) | buf[p + 1]]) {  /* p + 1 <= end: the newline */
            for (k = at_buckets->start[b]; k < at_buckets->start[b + 1]; k++) {
                const needle_t *ex = &exceptions[at_buckets->order[k]];
                if (p + ex->size <= end && memcmp(buf + p, ex->bytes, (size_t)ex->size) == 0)
                    return 1;
            }
            if (p > start) {
                unsigned char before = buf[p - 1];
                for (k = before_buckets->start[before]; k < before_buckets->start[before + 1]; k++) {
                    const needle_t *ex = &exceptions[before_buckets->order[k]];
                    if (p - ex->size >= start
                            && memcmp(buf + p - ex->size, ex->bytes, (size_t)ex->size) == 0)
                        return 1;
                }
            }
        }
        p++;
    }
    return 0;
}

/* Marks "maybe" each record still NONE that holds an exception (kind 0
 * anywhere; kinds 1 and 2 next to a character the composer table marks). */
static void
mark_exceptions(const unsigned char *buf, Py_ssize_t len, Py_ssize_t width, Py_ssize_t n,
                const unsigned char *table, const needle_t *exceptions,
                Py_ssize_t n_exceptions, int composed, unsigned char *status)
{
    Py_ssize_t k, r;
    for (k = 0; k < n_exceptions; k++) {
        const needle_t *ex = &exceptions[k];
        Py_ssize_t p = 0;
        if (ex->flags != ANYWHERE)
            continue;
        while (p + ex->size <= len) {
            const unsigned char *q = memchr(buf + p, ex->bytes[0],
                                            (size_t)(len - ex->size - p + 1));
            Py_ssize_t row;
            if (q == NULL)
                break;
            p = q - buf;
            row = p / width;
            if (status[row] != NONE) {
                p = (row + 1) * width;  /* decided, or maybe already */
                continue;
            }
            if (memcmp(buf + p, ex->bytes, (size_t)ex->size) == 0) {
                status[row] = MAYBE;
                p = (row + 1) * width;
            }
            else
                p++;
        }
    }
    if (composed) {
        buckets_t at_buckets, before_buckets;
        fill_buckets(&at_buckets, exceptions, n_exceptions, AT_COMPOSER);
        fill_buckets(&before_buckets, exceptions, n_exceptions, BEFORE_COMPOSER);
        for (r = 0; r < n; r++) {
            if (status[r] == NONE && composer_exception(buf, r * width, width, table,
                    exceptions, &at_buckets, &before_buckets))
                status[r] = MAYBE;
        }
    }
}

/* Tries every needle at i and marks the record holding i: certain (returns
 * 1: the rest of the record need not be read) or maybe (returns 0). */
static int
try_at(const unsigned char *buf, Py_ssize_t len, Py_ssize_t width, Py_ssize_t i,
       const needle_t *needles, Py_ssize_t n_needles, const unsigned char *fold_table,
       const unsigned char *composer, unsigned char *status, Py_ssize_t *work)
{
    Py_ssize_t start = (i / width) * width, k, t;
    for (k = 0; k < n_needles; k++) {
        const needle_t *nd = &needles[k];
        int verdict;
        if (i + nd->size > len)
            continue;
        for (t = 0; t < nd->size; t++)
            if (fold_table[buf[i + t]] != nd->bytes[t])
                break;
        *work += t + 1;
        if (t < nd->size)
            continue;
        verdict = classify(buf, len, start, i, nd->size, nd->flags, composer);
        if (verdict > 0) {
            status[i / width] = CERTAIN;
            return 1;
        }
        if (verdict == 0 && status[i / width] == NONE)
            status[i / width] = MAYBE;
    }
    return 0;
}

/* A byte each spelling must hold at a known offset from its start. */
typedef struct {
    unsigned char byte;
    Py_ssize_t offset, next;  /* next: where it is next found, from where last looked */
} anchor_t;

/* For each needle the byte (folded; both cases of a letter) that is rarest
 * in the first SAMPLE bytes of buf, as anchors (equal ones once). Returns
 * how many, or 0 when there would be over MAX_ANCHORS or they are not rarer
 * together than one byte in RARE: then Horspool's shifts are faster than
 * stopping at each hit. Looking for rare bytes with memchr skips ahead many
 * times faster than Horspool, which reads a byte at a time. */
#define SAMPLE 65536
#define RARE 32
#define MAX_ANCHORS 8
static int
choose_anchors(const unsigned char *buf, Py_ssize_t len, const needle_t *needles,
               Py_ssize_t n_needles, int fold, anchor_t *anchors, int always)
{
    Py_ssize_t count[256] = {0}, sample = len < SAMPLE ? len : SAMPLE, p, j, k, total = 0;
    int n = 0, a, c;
    for (p = 0; p < sample; p++)
        count[buf[p]]++;
    for (k = 0; k < n_needles; k++) {
        Py_ssize_t best = 0, best_count = -1;
        for (j = 0; j < needles[k].size; j++) {
            unsigned char v = needles[k].bytes[j];
            Py_ssize_t seen = count[v] + ((fold && v >= 'a' && v <= 'z') ? count[v - 32] : 0);
            if (best_count < 0 || seen < best_count) {
                best = j;
                best_count = seen;
            }
        }
        for (c = 0; c < 2; c++) {
            unsigned char v = needles[k].bytes[best];
            if (c == 1) {
                if (!(fold && v >= 'a' && v <= 'z'))
                    break;
                v = (unsigned char)(v - 32);
            }
            for (a = 0; a < n; a++)
                if (anchors[a].byte == v && anchors[a].offset == best)
                    break;
            if (a < n)
                continue;
            if (n == MAX_ANCHORS)
                return 0;
            anchors[n].byte = v;
            anchors[n].offset = best;
            anchors[n].next = -1;
            n++;
            total += count[v];
        }
    }
    return (always || total * RARE < sample) ? n : 0;
}

static PyObject *
scan_count(PyObject *self, PyObject *args)
{
    Py_buffer data = {0}, composer = {0};
    Py_ssize_t width;
    PyObject *needle_seq = NULL, *exception_seq = NULL, *fast_needles = NULL,
             *fast_exceptions = NULL, *result = NULL, *maybe = NULL;
    int fold;
    needle_t needles[MAX_NEEDLES];
    needle_t exceptions[MAX_EXCEPTIONS];
    Py_ssize_t n_needles, n_exceptions, k, n, r;
    unsigned char fold_table[256], shift[256], last[256];
    unsigned char folded[MAX_NEEDLES][MAX_NEEDLE_BYTES];
    unsigned char *status = NULL;
    Py_ssize_t certain = 0, m;
    const unsigned char *buf;
    Py_ssize_t len;
    int shaped = 1, composed = 0, method = 0, over = 0, rows = 0;
    PyObject *certain_rows = NULL;

    (void)self;
    if (!PyArg_ParseTuple(args, "y*nOpy*O|ip", &data, &width, &needle_seq, &fold,
                          &composer, &exception_seq, &method, &rows))
        return NULL;
    for (k = 0; k < 256; k++)
        fold_table[k] = (unsigned char)((fold && k >= 'A' && k <= 'Z') ? k + 32 : k);
    if (method < 0 || method > 2) {
        PyErr_SetString(PyExc_ValueError, "method is 0, 1 or 2");
        goto done;
    }
    if (width < 2) {
        PyErr_SetString(PyExc_ValueError, "width must be at least 2");
        goto done;
    }
    if (composer.len != 65536) {
        PyErr_SetString(PyExc_ValueError, "composer must be 65,536 bytes");
        goto done;
    }
    /* Tuples of the items: the bytes stay referenced, whatever the caller's
     * lists become (the scan holds the GIL throughout anyway). */
    fast_needles = PySequence_Tuple(needle_seq);
    if (fast_needles == NULL)
        goto done;
    n_needles = PyTuple_GET_SIZE(fast_needles);
    if (n_needles < 1 || n_needles > MAX_NEEDLES) {
        PyErr_SetString(PyExc_ValueError, "between 1 and 64 needles");
        goto done;
    }
    for (k = 0; k < n_needles; k++) {
        PyObject *item = PyTuple_GET_ITEM(fast_needles, k), *text;
        int flags;
        if (!PyTuple_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "a needle is a tuple (bytes, flags)");
            goto done;
        }
        if (!PyArg_ParseTuple(item, "Si", &text, &flags))
            goto done;
        needles[k].size = PyBytes_GET_SIZE(text);
        needles[k].flags = flags;
        if (needles[k].size < 1 || needles[k].size > MAX_NEEDLE_BYTES
                || memchr(PyBytes_AS_STRING(text), '\n', (size_t)needles[k].size) != NULL) {
            PyErr_SetString(PyExc_ValueError,
                            "a needle is 1 to 255 bytes and holds no newline");
            goto done;
        }
        {   /* compared folded, as the chunk's bytes are */
            const unsigned char *given = (const unsigned char *)PyBytes_AS_STRING(text);
            Py_ssize_t t;
            for (t = 0; t < needles[k].size; t++)
                folded[k][t] = fold_table[given[t]];
            needles[k].bytes = folded[k];
        }
    }
    fast_exceptions = PySequence_Tuple(exception_seq);
    if (fast_exceptions == NULL)
        goto done;
    n_exceptions = PyTuple_GET_SIZE(fast_exceptions);
    if (n_exceptions > MAX_EXCEPTIONS) {
        PyErr_SetString(PyExc_ValueError, "at most 256 exceptions");
        goto done;
    }
    for (k = 0; k < n_exceptions; k++) {
        PyObject *item = PyTuple_GET_ITEM(fast_exceptions, k), *text;
        int kind;
        if (!PyTuple_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "an exception is a tuple (bytes, kind)");
            goto done;
        }
        if (!PyArg_ParseTuple(item, "Si", &text, &kind))
            goto done;
        exceptions[k].bytes = (const unsigned char *)PyBytes_AS_STRING(text);
        exceptions[k].size = PyBytes_GET_SIZE(text);
        exceptions[k].flags = kind;
        if (exceptions[k].size < 1 || kind < ANYWHERE || kind > BEFORE_COMPOSER) {
            PyErr_SetString(PyExc_ValueError,
                            "an exception is at least one byte, of kind 0, 1 or 2");
            goto done;
        }
        if (kind != ANYWHERE)
            composed = 1;
    }

    buf = (const unsigned char *)data.buf;
    len = data.len;
    if (len % width != 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    n = len / width;
    status = PyMem_Calloc(n > 0 ? (size_t)n : 1, 1);
    if (status == NULL) {
        PyErr_NoMemory();
        goto done;
    }

    m = MAX_NEEDLE_BYTES;
    for (k = 0; k < n_needles; k++)
        if (needles[k].size < m)
            m = needles[k].size;
    /* Horspool over a set of needles: the window is the first m bytes of
     * each; its last byte decides the shift (computed over bytes 0..m-2)
     * and whether any needle may start at the window. */
    {
        unsigned char folded_shift[256], folded_last[256];
        Py_ssize_t j;
        memset(folded_shift, (int)m, sizeof folded_shift);
        memset(folded_last, 0, sizeof folded_last);
        for (k = 0; k < n_needles; k++) {
            for (j = 0; j + 1 < m; j++) {
                unsigned char c = fold_table[needles[k].bytes[j]];
                if (folded_shift[c] > m - 1 - j)
                    folded_shift[c] = (unsigned char)(m - 1 - j);
            }
            folded_last[fold_table[needles[k].bytes[m - 1]]] = 1;
        }
        for (k = 0; k < 256; k++) {
            shift[k] = folded_shift[fold_table[k]];
            last[k] = folded_last[fold_table[k]];
        }
    }

    for (r = 0; r < n; r++) {
        const unsigned char *record = buf + r * width;
        if (record[width - 1] != '\n' || memchr(record, '\n', width - 1) != NULL) {
            shaped = 0;
            break;
        }
    }
    if (shaped) {
        const unsigned char *table = (const unsigned char *)composer.buf;
        anchor_t anchors[MAX_ANCHORS];
        int n_anchors = method == 1 ? 0
            : choose_anchors(buf, len, needles, n_needles, fold, anchors, method == 2);
        Py_ssize_t i = 0, work = 0, budget = WORK_PER_BYTE * len + 65536;
        if (n_anchors > 0) {
            /* Each spelling holds an anchor's byte at the anchor's offset:
             * find the anchors with memchr, in the order of the starts they
             * imply, and try the needles at each start. */
            while (i + m <= len) {
                Py_ssize_t at = len;
                int a;
                for (a = 0; a < n_anchors; a++) {
                    anchor_t *an = &anchors[a];
                    Py_ssize_t from = i + an->offset;
                    if (an->next < from) {
                        const unsigned char *q = from < len
                            ? memchr(buf + from, an->byte, (size_t)(len - from)) : NULL;
                        an->next = q == NULL ? PY_SSIZE_T_MAX : q - buf;
                    }
                    if (an->next != PY_SSIZE_T_MAX && an->next - an->offset < at)
                        at = an->next - an->offset;
                }
                if (at + m > len)
                    break;
                if (try_at(buf, len, width, at, needles, n_needles, fold_table, table, status,
                           &work))
                    i = (at / width + 1) * width;  /* the rest of this record is decided */
                else
                    i = at + 1;
                if (work > budget)
                    break;
            }
        }
        else {
            while (i + m <= len) {
                unsigned char c = buf[i + m - 1];
                if (last[c]) {
                    int decided = try_at(buf, len, width, i, needles, n_needles, fold_table,
                                         table, status, &work);
                    if (work > budget)
                        break;
                    if (decided) {
                        i = (i / width + 1) * width;  /* the rest of this record is decided */
                        continue;
                    }
                }
                i += shift[c];
            }
        }
        if (work > budget)
            over = 1;
        if (!over)
            mark_exceptions(buf, len, width, n, table, exceptions, n_exceptions, composed,
                            status);
        for (r = 0; r < n; r++)
            certain += status[r] == CERTAIN;
    }

    if (!shaped) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    if (over) {
        result = Py_False;
        Py_INCREF(result);
        goto done;
    }
    maybe = PyList_New(0);
    certain_rows = rows ? PyList_New(0) : NULL;
    if (maybe == NULL || (rows && certain_rows == NULL))
        goto done;
    for (r = 0; r < n; r++) {
        PyObject *into = status[r] == MAYBE ? maybe : status[r] == CERTAIN ? certain_rows : NULL;
        if (into != NULL) {
            PyObject *index = PyLong_FromSsize_t(r);
            if (index == NULL || PyList_Append(into, index) < 0) {
                Py_XDECREF(index);
                goto done;
            }
            Py_DECREF(index);
        }
    }
    if (rows)
        result = Py_BuildValue("OO", certain_rows, maybe);
    else
        result = Py_BuildValue("nO", certain, maybe);

done:
    Py_XDECREF(maybe);
    Py_XDECREF(certain_rows);
    Py_XDECREF(fast_needles);
    Py_XDECREF(fast_exceptions);
    PyMem_Free(status);
    if (data.obj != NULL)
        PyBuffer_Release(&data);
    if (composer.obj != NULL)
        PyBuffer_Release(&composer);
    return result;
}


/* -- chain: literals in order within a record ------------------------------ */

#define MAX_STAGES 8

typedef struct {
    needle_t needles[MAX_NEEDLES];
    Py_ssize_t n, min_size, gap;
    unsigned char first[256];  /* a byte (as read) some needle may start with */
    /* Where every needle holds one byte at one offset, a stage is found
     * with memchr on the rarest such byte (both cases of a folded letter):
     * anchors, at offset anchor_at; n_anchors 0 where there is none. */
    int n_anchors;
    unsigned char anchors[2];
    Py_ssize_t anchor_at, anchor_count;  /* anchor_count: seen in the sample */
} stage_t;

/* The first byte in [p, stop) that is one of the stage's anchors, or NULL. */
static const unsigned char *
find_anchor(const unsigned char *p, const unsigned char *stop, const stage_t *st)
{
    const unsigned char *a, *b;
    if (p >= stop)
        return NULL;
    a = memchr(p, st->anchors[0], (size_t)(stop - p));
    if (st->n_anchors == 1)
        return a;
    b = memchr(p, st->anchors[1], (size_t)((a != NULL ? a : stop) - p));
    return b != NULL ? b : a;
}

/* The earliest end of an occurrence of one of the stage's needles starting
 * at or after `from` in the record [start, start + width) whose \b holds
 * or is undecided (classify >= 0); -1 when there is none. *verdict: the
 * occurrence's classify (1 when decided; when two end together, the
 * decided one). */
static Py_ssize_t
earliest_end(const unsigned char *buf, Py_ssize_t len, Py_ssize_t start, Py_ssize_t width,
             Py_ssize_t from, const stage_t *st, const unsigned char *fold_table,
             const unsigned char *composer, int *verdict, Py_ssize_t *work)
{
    Py_ssize_t end = start + width - 1, best = -1, i, k, t;  /* end: the newline */
    if (st->n_anchors > 0) {
        /* Every needle holds an anchor at anchor_at: the starts to try. */
        const unsigned char *stop = buf + end - st->min_size + st->anchor_at + 1, *q;
        for (q = find_anchor(buf + from + st->anchor_at, stop, st); q != NULL;
             q = find_anchor(q + 1, stop, st)) {
            i = (q - buf) - st->anchor_at;
            if (best >= 0 && i + st->min_size > best)
                break;  /* every occurrence from here ends later */
            for (k = 0; k < st->n; k++) {
                const needle_t *nd = &st->needles[k];
                int v;
                if (i + nd->size > end)
                    continue;
                for (t = 0; t < nd->size; t++)
                    if (fold_table[buf[i + t]] != nd->bytes[t])
                        break;
                *work += t + 1;
                if (t < nd->size)
                    continue;
                v = classify(buf, len, start, i, nd->size, nd->flags, composer);
                if (v < 0)
                    continue;
                if (best < 0 || i + nd->size < best || (i + nd->size == best && v > *verdict)) {
                    best = i + nd->size;
                    *verdict = v;
                }
            }
        }
        return best;
    }
    for (i = from; i + st->min_size <= end; i++) {
        if (best >= 0 && i + st->min_size > best)
            break;  /* every occurrence from here ends later */
        if (!st->first[buf[i]])
            continue;
        for (k = 0; k < st->n; k++) {
            const needle_t *nd = &st->needles[k];
            int v;
            if (i + nd->size > end)
                continue;
            for (t = 0; t < nd->size; t++)
                if (fold_table[buf[i + t]] != nd->bytes[t])
                    break;
            *work += t + 1;
            if (t < nd->size)
                continue;
            v = classify(buf, len, start, i, nd->size, nd->flags, composer);
            if (v < 0)
                continue;
            if (best < 0 || i + nd->size < best || (i + nd->size == best && v > *verdict)) {
                best = i + nd->size;
                *verdict = v;
            }
        }
    }
    return best;
}

/* Reads the needles of one stage into st (folded copies in folded). */
static int
read_needles(PyObject *seq, stage_t *st, unsigned char (*folded)[MAX_NEEDLE_BYTES],
             const unsigned char *fold_table, PyObject **keep)
{
    Py_ssize_t k, t;
    *keep = PySequence_Tuple(seq);
    if (*keep == NULL)
        return -1;
    st->n = PyTuple_GET_SIZE(*keep);
    if (st->n < 1 || st->n > MAX_NEEDLES) {
        PyErr_SetString(PyExc_ValueError, "between 1 and 64 needles a stage");
        return -1;
    }
    st->min_size = MAX_NEEDLE_BYTES;
    memset(st->first, 0, sizeof st->first);
    for (k = 0; k < st->n; k++) {
        PyObject *item = PyTuple_GET_ITEM(*keep, k), *text;
        const unsigned char *given;
        int flags;
        if (!PyTuple_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "a needle is a tuple (bytes, flags)");
            return -1;
        }
        if (!PyArg_ParseTuple(item, "Si", &text, &flags))
            return -1;
        st->needles[k].size = PyBytes_GET_SIZE(text);
        st->needles[k].flags = flags;
        given = (const unsigned char *)PyBytes_AS_STRING(text);
        if (st->needles[k].size < 1 || st->needles[k].size > MAX_NEEDLE_BYTES
                || memchr(given, '\n', (size_t)st->needles[k].size) != NULL) {
            PyErr_SetString(PyExc_ValueError,
                            "a needle is 1 to 255 bytes and holds no newline");
            return -1;
        }
        for (t = 0; t < st->needles[k].size; t++)
            folded[k][t] = fold_table[given[t]];
        st->needles[k].bytes = folded[k];
        if (st->needles[k].size < st->min_size)
            st->min_size = st->needles[k].size;
    }
    for (t = 0; t < 256; t++)
        for (k = 0; k < st->n; k++)
            if (fold_table[t] == st->needles[k].bytes[0])
                st->first[t] = 1;
    return 0;
}

static PyObject *
scan_chain(PyObject *self, PyObject *args)
{
    Py_buffer data = {0}, composer = {0};
    Py_ssize_t width, n_stages, n_exceptions, k, n, r, s, len, certain = 0;
    PyObject *stage_seq = NULL, *exception_seq = NULL, *fast_stages = NULL,
             *fast_exceptions = NULL, *result = NULL, *maybe = NULL, *certain_rows = NULL;
    PyObject *keep[MAX_STAGES] = {NULL};
    int fold, rows = 0, composed = 0, over = 0;
    stage_t *stages = NULL;
    unsigned char (*folded)[MAX_NEEDLES][MAX_NEEDLE_BYTES] = NULL;
    needle_t exceptions[MAX_EXCEPTIONS];
    unsigned char fold_table[256], *status = NULL;
    const unsigned char *buf, *table;

    (void)self;
    if (!PyArg_ParseTuple(args, "y*nOpy*O|p", &data, &width, &stage_seq, &fold,
                          &composer, &exception_seq, &rows))
        return NULL;
    for (k = 0; k < 256; k++)
        fold_table[k] = (unsigned char)((fold && k >= 'A' && k <= 'Z') ? k + 32 : k);
    if (width < 2) {
        PyErr_SetString(PyExc_ValueError, "width must be at least 2");
        goto done;
    }
    if (composer.len != 65536) {
        PyErr_SetString(PyExc_ValueError, "composer must be 65,536 bytes");
        goto done;
    }
    fast_stages = PySequence_Tuple(stage_seq);
    if (fast_stages == NULL)
        goto done;
    n_stages = PyTuple_GET_SIZE(fast_stages);
    if (n_stages < 1 || n_stages > MAX_STAGES) {
        PyErr_SetString(PyExc_ValueError, "between 1 and 8 stages");
        goto done;
    }
    stages = PyMem_Calloc((size_t)n_stages, sizeof *stages);
    folded = PyMem_Calloc((size_t)n_stages, sizeof *folded);
    if (stages == NULL || folded == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (s = 0; s < n_stages; s++) {
        PyObject *item = PyTuple_GET_ITEM(fast_stages, s), *needle_seq;
        Py_ssize_t gap;
        if (!PyTuple_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "a stage is a tuple (needles, gap)");
            goto done;
        }
        if (!PyArg_ParseTuple(item, "On", &needle_seq, &gap))
            goto done;
        if (gap < 0 || gap > 1) {
            PyErr_SetString(PyExc_ValueError, "a gap is 0 or 1 byte");
            goto done;
        }
        stages[s].gap = gap;
        if (read_needles(needle_seq, &stages[s], folded[s], fold_table, &keep[s]) < 0)
            goto done;
    }
    fast_exceptions = PySequence_Tuple(exception_seq);
    if (fast_exceptions == NULL)
        goto done;
    n_exceptions = PyTuple_GET_SIZE(fast_exceptions);
    if (n_exceptions > MAX_EXCEPTIONS) {
        PyErr_SetString(PyExc_ValueError, "at most 256 exceptions");
        goto done;
    }
    for (k = 0; k < n_exceptions; k++) {
        PyObject *item = PyTuple_GET_ITEM(fast_exceptions, k), *text;
        int kind;
        if (!PyTuple_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "an exception is a tuple (bytes, kind)");
            goto done;
        }
        if (!PyArg_ParseTuple(item, "Si", &text, &kind))
            goto done;
        exceptions[k].bytes = (const unsigned char *)PyBytes_AS_STRING(text);
        exceptions[k].size = PyBytes_GET_SIZE(text);
        exceptions[k].flags = kind;
        if (exceptions[k].size < 1 || kind < ANYWHERE || kind > BEFORE_COMPOSER) {
            PyErr_SetString(PyExc_ValueError,
                            "an exception is at least one byte, of kind 0, 1 or 2");
            goto done;
        }
        if (kind != ANYWHERE)
            composed = 1;
    }

    buf = (const unsigned char *)data.buf;
    len = data.len;
    table = (const unsigned char *)composer.buf;
    if (len % width != 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    n = len / width;
    for (r = 0; r < n; r++) {
        const unsigned char *record = buf + r * width;
        if (record[width - 1] != '\n' || memchr(record, '\n', width - 1) != NULL) {
            result = Py_None;
            Py_INCREF(result);
            goto done;
        }
    }
    status = PyMem_Calloc(n > 0 ? (size_t)n : 1, 1);
    if (status == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    {   /* Each stage's rarest shared byte in the first SAMPLE bytes. */
        Py_ssize_t count[256] = {0}, sample = len < SAMPLE ? len : SAMPLE, p, j;
        for (p = 0; p < sample; p++)
            count[buf[p]]++;
        for (s = 0; s < n_stages; s++) {
            stage_t *st = &stages[s];
            Py_ssize_t best = 0, best_count = -1;
            for (j = 0; j < st->min_size; j++) {
                unsigned char v = st->needles[0].bytes[j];
                Py_ssize_t seen = count[v] + ((fold && v >= 'a' && v <= 'z') ? count[v - 32] : 0), k;
                for (k = 1; k < st->n; k++)
                    if (st->needles[k].bytes[j] != v)
                        break;
                if (k < st->n)
                    continue;  /* the needles differ here */
                if (best_count < 0 || seen < best_count) {
                    best = j;
                    best_count = seen;
                }
            }
            if (best_count < 0)
                continue;  /* no byte all needles hold at one offset */
            st->anchor_at = best;
            st->anchor_count = best_count;
            st->anchors[0] = st->needles[0].bytes[best];
            st->n_anchors = 1;
            if (fold && st->anchors[0] >= 'a' && st->anchors[0] <= 'z') {
                st->anchors[1] = (unsigned char)(st->anchors[0] - 32);
                st->n_anchors = 2;
            }
        }
    }
    {
        Py_ssize_t work = 0, budget = WORK_PER_BYTE * len + 65536;
        /* The records to read: those holding a needle of the stage whose
         * anchor is rarest (found across the chunk with memchr, so records
         * without it cost nothing), else every record. */
        const stage_t *filter = NULL;
        Py_ssize_t p = 0;
        for (s = 0; s < n_stages; s++)
            if (stages[s].n_anchors > 0
                    && (filter == NULL || stages[s].anchor_count < filter->anchor_count))
                filter = &stages[s];
        r = 0;
        while (!over) {
            if (filter != NULL) {
                const unsigned char *q = find_anchor(buf + p + filter->anchor_at, buf + len, filter);
                Py_ssize_t i, t, k, rec_end;
                if (q == NULL)
                    break;
                i = (q - buf) - filter->anchor_at;
                r = i / width;
                rec_end = r * width + width - 1;
                for (k = 0; k < filter->n; k++) {
                    const needle_t *nd = &filter->needles[k];
                    for (t = 0; t < nd->size && i + t < rec_end; t++)
                        if (fold_table[buf[i + t]] != nd->bytes[t])
                            break;
                    work += t + 1;
                    if (t == nd->size)
                        break;
                }
                if (k == filter->n) {
                    p = i + 1;
                    continue;
                }
                p = (r + 1) * width;
            }
            else if (r >= n)
                break;
            {
                /* Greedy: the earliest-ending occurrence of each literal in
                 * turn, after the previous one's end (and its gap). If any
                 * ordered sequence of occurrences exists, this finds one. */
                Py_ssize_t start = r * width, from = start;
                int decided = 1;
                for (s = 0; s < n_stages; s++) {
                    int v = 0;
                    Py_ssize_t e = earliest_end(buf, len, start, width,
                                                s ? from + stages[s].gap : start, &stages[s],
                                                fold_table, table, &v, &work);
                    if (e < 0)
                        break;
                    decided &= v > 0;
                    from = e;
                }
                if (s == n_stages)
                    status[r] = decided ? CERTAIN : MAYBE;
            }
            if (filter == NULL)
                r++;
            if (work > budget)
                over = 1;
        }
    }
    if (over) {
        result = Py_False;
        Py_INCREF(result);
        goto done;
    }
    mark_exceptions(buf, len, width, n, table, exceptions, n_exceptions, composed, status);
    maybe = PyList_New(0);
    certain_rows = rows ? PyList_New(0) : NULL;
    if (maybe == NULL || (rows && certain_rows == NULL))
        goto done;
    for (r = 0; r < n; r++) {
        PyObject *into = status[r] == MAYBE ? maybe : status[r] == CERTAIN ? certain_rows : NULL;
        certain += status[r] == CERTAIN;
        if (into != NULL) {
            PyObject *index = PyLong_FromSsize_t(r);
            if (index == NULL || PyList_Append(into, index) < 0) {
                Py_XDECREF(index);
                goto done;
            }
            Py_DECREF(index);
        }
    }
    if (rows)
        result = Py_BuildValue("OO", certain_rows, maybe);
    else
        result = Py_BuildValue("nO", certain, maybe);

done:
    Py_XDECREF(maybe);
    Py_XDECREF(certain_rows);
    for (s = 0; s < MAX_STAGES; s++)
        Py_XDECREF(keep[s]);
    Py_XDECREF(fast_stages);
    Py_XDECREF(fast_exceptions);
    PyMem_Free(status);
    PyMem_Free(stages);
    PyMem_Free(folded);
    if (data.obj != NULL)
        PyBuffer_Release(&data);
    if (composer.obj != NULL)
        PyBuffer_Release(&composer);
    return result;
}

static PyMethodDef scan_methods[] = {
    {"count", scan_count, METH_VARARGS,
     "count(data, width, needles, fold, composer, exceptions, method=0, rows=False) -> "
     "(certain, maybe) or None: see optmem/recall/_scan.c and optmem/recall/scancount.py."},
    {"chain", scan_chain, METH_VARARGS,
     "chain(data, width, stages, fold, composer, exceptions, rows=False) -> "
     "(certain, maybe), None or False: see optmem/recall/_scan.c."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef scan_module = {
    PyModuleDef_HEAD_INIT, "_scan",
    "Count LOG.txt records holding a literal in one pass (optmem/recall/scancount.py).",
    -1, scan_methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC
PyInit__scan(void)
{
    int c;
    for (c = 0; c < 256; c++)
        is_word[c] = (unsigned char)((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                                     || (c >= '0' && c <= '9') || c == '_');
    return PyModule_Create(&scan_module);
}
