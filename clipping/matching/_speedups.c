/* The keyword index's per-page loops in C: the same steps as the pure-Python code in
 * clipping/matching/index.py and spans.py, which stays the reference (tests run both and
 * compare them with the naive per-list loop).
 *
 * scan()    one key space: where each key occurs, given to the concepts holding the key
 * collect() the postings walk and every matched list's spans, first ones in text order
 * judge()   the lists with exclusions, sites or "all terms"
 * add_postings()  adding a list: its terms' concepts and postings
 * spans(), merge()  the steps collect and judge take to build a concept's spans and to merge
 *           a list's, exposed so that tests compare them with spans.py on generated input
 *
 * Spans are MatchedSpan tuples (start, end, term) ordered as tuples are.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* ---- scan ---------------------------------------------------------------------------- */

/* (first, stop), a new reference. */
static PyObject *
pair(Py_ssize_t first, Py_ssize_t stop)
{
    PyObject *place = PyTuple_New(2);
    if (place == NULL)
        return NULL;
    PyObject *left = PyLong_FromSsize_t(first), *right = PyLong_FromSsize_t(stop);
    if (left == NULL || right == NULL) {
        Py_XDECREF(left);
        Py_XDECREF(right);
        Py_DECREF(place);
        return NULL;
    }
    PyTuple_SET_ITEM(place, 0, left);
    PyTuple_SET_ITEM(place, 1, right);
    return place;
}

/* places[key].append((first, stop)) unless it holds `limit` places already (limit < 0: no
 * limit); 0 on success, -1 with an exception set. */
static int
add_place(PyObject *places, PyObject *key, Py_ssize_t first, Py_ssize_t stop, Py_ssize_t limit)
{
    PyObject *where = PyDict_GetItemWithError(places, key);
    if (where == NULL) {
        if (PyErr_Occurred())
            return -1;
        where = PyList_New(0);
        if (where == NULL)
            return -1;
        int failed = PyDict_SetItem(places, key, where);
        Py_DECREF(where); /* the dict holds it */
        if (failed)
            return -1;
    }
    if (limit >= 0 && PyList_GET_SIZE(where) >= limit)
        return 0;
    PyObject *place = pair(first, stop);
    if (place == NULL)
        return -1;
    int failed = PyList_Append(where, place);
    Py_DECREF(place);
    return failed;
}

/* left + separator + right, a new reference. */
static PyObject *
joined(PyObject *left, PyObject *separator, PyObject *right)
{
    PyObject *head = PyUnicode_Concat(left, separator);
    if (head == NULL)
        return NULL;
    PyObject *key = PyUnicode_Concat(head, right);
    Py_DECREF(head);
    return key;
}

/* Find the n-gram keys that start at token `first`, extending while some key starts so. */
static int
scan_longer(PyObject *sequence, Py_ssize_t first, PyObject *seconds, PyObject *concepts,
            PyObject *prefixes, PyObject *separator, PyObject *places, Py_ssize_t limit)
{
    Py_ssize_t last = PyList_GET_SIZE(sequence) - 1;
    if (first >= last)
        return 0;
    PyObject *token = PyList_GET_ITEM(sequence, first);
    PyObject *second = PyList_GET_ITEM(sequence, first + 1);
    int follows = PyDict_Contains(seconds, second);
    if (follows <= 0)
        return follows;
    PyObject *key = joined(token, separator, second);
    if (key == NULL)
        return -1;
    Py_ssize_t stop = first + 2;
    for (;;) {
        PyObject *holders = PyDict_GetItemWithError(concepts, key);
        if (holders == NULL && PyErr_Occurred())
            goto error;
        if (holders != NULL && add_place(places, key, first, stop, limit) < 0)
            goto error;
        if (stop > last)
            break;
        int prefix = PyDict_Contains(prefixes, key);
        if (prefix < 0)
            goto error;
        if (!prefix)
            break;
        PyObject *longer = joined(key, separator, PyList_GET_ITEM(sequence, stop));
        if (longer == NULL)
            goto error;
        Py_SETREF(key, longer);
        stop++;
    }
    Py_DECREF(key);
    return 0;
error:
    Py_DECREF(key);
    return -1;
}

/* found[concept] = places of its key; a concept found by several keys gets them joined
 * (a new list: a key's list is shared by its concepts) and is listed in `several`. */
static int
give_to_concepts(PyObject *places, PyObject *concepts, PyObject *found, PyObject *several)
{
    Py_ssize_t position = 0;
    PyObject *key, *where;
    while (PyDict_Next(places, &position, &key, &where)) {
        PyObject *holders = PyDict_GetItemWithError(concepts, key);
        if (holders == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_KeyError, "a found key has no concepts");
            return -1;
        }
        if (!PyList_Check(holders)) {
            PyErr_SetString(PyExc_TypeError, "a key's concepts must be a list");
            return -1;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(holders); i++) {
            PyObject *concept = PyList_GET_ITEM(holders, i);
            PyObject *held = PyDict_GetItemWithError(found, concept);
            if (held == NULL) {
                if (PyErr_Occurred() || PyDict_SetItem(found, concept, where) < 0)
                    return -1;
                continue;
            }
            PyObject *both = PySequence_Concat(held, where);
            if (both == NULL)
                return -1;
            int failed = PyDict_SetItem(found, concept, both);
            Py_DECREF(both);
            if (failed || PyList_Append(several, concept) < 0)
                return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(scan_doc,
"scan(sequence, concepts, follows, prefixes, separator, found, several, limit) -> None\n\n"
"Add the places of one key space's keys in sequence to found ({concept: [(first, stop)]}),\n"
"the first limit per key (all if limit < 0), as index._scan_space does; concepts found by\n"
"several keys are appended to several.");

static PyObject *
scan(PyObject *module, PyObject *args)
{
    PyObject *sequence, *concepts, *follows, *prefixes, *separator, *found, *several;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "O!O!O!O!UO!O!n:scan", &PyList_Type, &sequence, &PyDict_Type,
                          &concepts, &PyDict_Type, &follows, &PyDict_Type, &prefixes,
                          &separator, &PyDict_Type, &found, &PyList_Type, &several, &limit))
        return NULL;
    PyObject *places = PyDict_New();
    if (places == NULL)
        return NULL;
    /* A page repeats its words: each distinct token is looked up once in the space's
     * (large, cache-unfriendly) dicts, then in this small one: token -> (holders, seconds),
     * None where the token is no key or starts none. */
    PyObject *memo = PyDict_New();
    if (memo == NULL)
        goto error;
    Py_ssize_t size = PyList_GET_SIZE(sequence);
    for (Py_ssize_t first = 0; first < size; first++) {
        PyObject *token = PyList_GET_ITEM(sequence, first);
        PyObject *known = PyDict_GetItemWithError(memo, token);
        if (known == NULL) {
            if (PyErr_Occurred())
                goto error;
            PyObject *holders = PyDict_GetItemWithError(concepts, token);
            if (holders == NULL && PyErr_Occurred())
                goto error;
            PyObject *seconds = PyDict_GetItemWithError(follows, token);
            if (seconds == NULL && PyErr_Occurred())
                goto error;
            if (seconds != NULL && !PyDict_Check(seconds)) {
                PyErr_SetString(PyExc_TypeError, "follows must map words to dicts");
                goto error;
            }
            known = PyTuple_Pack(2, holders ? holders : Py_None, seconds ? seconds : Py_None);
            if (known == NULL)
                goto error;
            int failed = PyDict_SetItem(memo, token, known);
            Py_DECREF(known); /* the memo holds it */
            if (failed)
                goto error;
        }
        if (PyTuple_GET_ITEM(known, 0) != Py_None &&
            add_place(places, token, first, first + 1, limit) < 0)
            goto error;
        PyObject *seconds = PyTuple_GET_ITEM(known, 1);
        if (seconds != Py_None &&
            scan_longer(sequence, first, seconds, concepts, prefixes, separator, places, limit) < 0)
            goto error;
    }
    if (give_to_concepts(places, concepts, found, several) < 0)
        goto error;
    Py_DECREF(memo);
    Py_DECREF(places);
    Py_RETURN_NONE;
error:
    Py_XDECREF(memo);
    Py_DECREF(places);
    return NULL;
}

/* ---- merging spans --------------------------------------------------------------------- */

/* The two integers of a pair such as (first, stop) or [start, end]; -1 with an exception. */
static int
two_integers(PyObject *pair, Py_ssize_t *first, Py_ssize_t *second)
{
    PyObject *items = PySequence_Fast(pair, "expected a pair of integers");
    if (items == NULL)
        return -1;
    int result = -1;
    if (PySequence_Fast_GET_SIZE(items) != 2) {
        PyErr_SetString(PyExc_TypeError, "expected a pair of integers");
    }
    else {
        *first = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(items, 0));
        *second = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(items, 1));
        if (!((*first == -1 || *second == -1) && PyErr_Occurred()))
            result = 0;
    }
    Py_DECREF(items);
    return result;
}

typedef struct {
    Py_ssize_t count;
    Py_ssize_t *starts, *ends;
} NewText;

static int
read_new_text(PyObject *ranges, NewText *new_text)
{
    new_text->count = 0;
    new_text->starts = new_text->ends = NULL;
    PyObject *items = PySequence_Fast(ranges, "new_text must be a sequence of (start, end)");
    if (items == NULL)
        return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(items);
    if (count) {
        new_text->starts = PyMem_New(Py_ssize_t, count);
        new_text->ends = PyMem_New(Py_ssize_t, count);
        if (new_text->starts == NULL || new_text->ends == NULL) {
            PyErr_NoMemory();
            goto error;
        }
        for (Py_ssize_t i = 0; i < count; i++) {
            PyObject *range = PySequence_Fast_GET_ITEM(items, i);
            if (two_integers(range, &new_text->starts[i], &new_text->ends[i]) < 0)
                goto error;
        }
    }
    new_text->count = count;
    Py_DECREF(items);
    return 0;
error:
    PyMem_Free(new_text->starts);
    PyMem_Free(new_text->ends);
    new_text->starts = new_text->ends = NULL;
    Py_DECREF(items);
    return -1;
}

static void
free_new_text(NewText *new_text)
{
    PyMem_Free(new_text->starts);
    PyMem_Free(new_text->ends);
}

static int
in_new_text(Py_ssize_t start, Py_ssize_t end, const NewText *new_text)
{
    for (Py_ssize_t i = 0; i < new_text->count; i++)
        if (start < new_text->ends[i] && new_text->starts[i] < end)
            return 1;
    return 0;
}

/* A span's start and end; -1 with an exception set if it is no (int, int, str) tuple. */
static int
span_bounds(PyObject *span, Py_ssize_t *start, Py_ssize_t *end)
{
    if (!PyTuple_Check(span) || PyTuple_GET_SIZE(span) != 3) {
        PyErr_SetString(PyExc_TypeError, "a span must be a (start, end, term) tuple");
        return -1;
    }
    *start = PyLong_AsSsize_t(PyTuple_GET_ITEM(span, 0));
    *end = PyLong_AsSsize_t(PyTuple_GET_ITEM(span, 1));
    if ((*start == -1 || *end == -1) && PyErr_Occurred())
        return -1;
    return 0;
}

typedef struct {
    PyObject *spans; /* a tuple of spans in text order (borrowed) */
    Py_ssize_t next;
    Py_ssize_t start, end; /* of spans[next] */
} Head;

static int
load_head(Head *head)
{
    if (head->next >= PyTuple_GET_SIZE(head->spans))
        return 0;
    return span_bounds(PyTuple_GET_ITEM(head->spans, head->next), &head->start, &head->end);
}

/* 1 if a's next span comes before b's, 0 if not, -1 on error (term compared on ties). */
static int
comes_first(const Head *a, const Head *b)
{
    if (a->start != b->start)
        return a->start < b->start;
    if (a->end != b->end)
        return a->end < b->end;
    PyObject *left = PyTuple_GET_ITEM(PyTuple_GET_ITEM(a->spans, a->next), 2);
    PyObject *right = PyTuple_GET_ITEM(PyTuple_GET_ITEM(b->spans, b->next), 2);
    return PyObject_RichCompareBool(left, right, Py_LT);
}

/* The first `limit` spans of the groups in text order, plus up to `limit` more in new
 * text (spans.capped): a new tuple. Groups are tuples of spans, each in text order. */
static PyObject *
merge_groups(PyObject *const *groups, Py_ssize_t count, Py_ssize_t limit,
             const NewText *new_text)
{
    Head small[16];
    Head *heads = count <= 16 ? small : PyMem_New(Head, count);
    PyObject **kept = PyMem_New(PyObject *, 2 * limit + 1);
    PyObject *result = NULL;
    if (heads == NULL || kept == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t live = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyTuple_Check(groups[i])) {
            PyErr_SetString(PyExc_TypeError, "a concept's spans must be a tuple");
            goto done;
        }
        if (PyTuple_GET_SIZE(groups[i]) == 0)
            continue;
        heads[live].spans = groups[i];
        heads[live].next = 0;
        if (load_head(&heads[live]) < 0)
            goto done;
        live++;
    }
    Py_ssize_t first = 0, extra = 0;
    while (live && (first < limit || (new_text->count && extra < limit))) {
        Py_ssize_t best = 0;
        for (Py_ssize_t i = 1; i < live; i++) {
            int earlier = comes_first(&heads[i], &heads[best]);
            if (earlier < 0)
                goto done;
            if (earlier)
                best = i;
        }
        Head *head = &heads[best];
        PyObject *span = PyTuple_GET_ITEM(head->spans, head->next);
        if (first < limit) {
            kept[first++ + extra] = span;
        }
        else if (in_new_text(head->start, head->end, new_text)) {
            kept[first + extra++] = span;
        }
        head->next++;
        if (head->next < PyTuple_GET_SIZE(head->spans)) {
            if (load_head(head) < 0)
                goto done;
        }
        else {
            heads[best] = heads[--live];
        }
    }
    result = PyTuple_New(first + extra);
    if (result == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < first + extra; i++) {
        Py_INCREF(kept[i]);
        PyTuple_SET_ITEM(result, i, kept[i]);
    }
done:
    if (heads != small)
        PyMem_Free(heads);
    PyMem_Free(kept);
    return result;
}

PyDoc_STRVAR(merge_doc,
"merge(groups, limit, new_text) -> tuple\n\n"
"Return the first limit spans of the groups (tuples of spans in text order) in text order,\n"
"plus up to limit more in the character ranges new_text, as spans.capped keeps them.");

static PyObject *
merge(PyObject *module, PyObject *args)
{
    PyObject *groups, *ranges;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "OnO:merge", &groups, &limit, &ranges))
        return NULL;
    if (limit < 0) {
        PyErr_SetString(PyExc_ValueError, "limit must not be negative");
        return NULL;
    }
    PyObject *items = PySequence_Fast(groups, "groups must be a sequence of tuples");
    if (items == NULL)
        return NULL;
    NewText new_text;
    PyObject *result = NULL;
    if (read_new_text(ranges, &new_text) == 0) {
        result = merge_groups(PySequence_Fast_ITEMS(items), PySequence_Fast_GET_SIZE(items),
                              limit, &new_text);
        free_new_text(&new_text);
    }
    Py_DECREF(items);
    return result;
}

PyDoc_STRVAR(spans_doc,
"spans(where, starts, ends, term, span_type, limit, new_text) -> tuple\n\n"
"Return span_type(starts[first], ends[stop - 1], term) for the (first, stop) token ranges\n"
"in where (in text order): the first limit, plus up to limit more in new_text.");

/* span_type(starts[first], ends[stop - 1], term) for the (first, stop) ranges in where: the
 * first limit, plus up to limit more in new text. A new tuple. */
static PyObject *
build_spans(PyObject *where, PyObject *starts, PyObject *ends, PyObject *term,
            PyTypeObject *span_type, Py_ssize_t limit, const NewText *new_text)
{
    if (!PyList_Check(where) || !PyList_Check(starts) || !PyList_Check(ends) ||
        !PyUnicode_Check(term) || !PyType_IsSubtype(span_type, &PyTuple_Type) || limit < 0) {
        PyErr_SetString(PyExc_TypeError,
                        "spans need lists of places, starts and ends, a str term, a tuple type"
                        " and a limit >= 0");
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(where), tokens = PyList_GET_SIZE(starts);
    Py_ssize_t room = count < 2 * limit ? count : 2 * limit;
    PyObject *result = PyTuple_New(room);
    Py_ssize_t kept = 0, extra = 0;
    if (result == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < count && kept < room; i++) {
        if (kept - extra >= limit && (new_text->count == 0 || extra >= limit))
            break;
        Py_ssize_t first, stop;
        if (two_integers(PyList_GET_ITEM(where, i), &first, &stop) < 0)
            goto error;
        if (first < 0 || stop <= first || stop > tokens || tokens != PyList_GET_SIZE(ends)) {
            PyErr_SetString(PyExc_IndexError, "a token range lies outside the text");
            goto error;
        }
        PyObject *start = PyList_GET_ITEM(starts, first), *end = PyList_GET_ITEM(ends, stop - 1);
        if (kept - extra >= limit) {
            Py_ssize_t from = PyLong_AsSsize_t(start), to = PyLong_AsSsize_t(end);
            if ((from == -1 || to == -1) && PyErr_Occurred())
                goto error;
            if (!in_new_text(from, to, new_text))
                continue;
            extra++;
        }
        PyObject *span = span_type->tp_alloc(span_type, 3);
        if (span == NULL)
            goto error;
        Py_INCREF(start);
        Py_INCREF(end);
        Py_INCREF(term);
        PyTuple_SET_ITEM(span, 0, start);
        PyTuple_SET_ITEM(span, 1, end);
        PyTuple_SET_ITEM(span, 2, term);
        PyTuple_SET_ITEM(result, kept++, span);
    }
    if (kept < room && _PyTuple_Resize(&result, kept) < 0)
        return NULL;
    return result;
error:
    Py_DECREF(result); /* unset items are NULL, which tuple deallocation skips */
    return NULL;
}

static PyObject *
spans(PyObject *module, PyObject *args)
{
    PyObject *where, *starts, *ends, *term, *ranges;
    PyTypeObject *span_type;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "OOOOO!nO:spans", &where, &starts, &ends, &term, &PyType_Type,
                          &span_type, &limit, &ranges))
        return NULL;
    NewText new_text;
    if (read_new_text(ranges, &new_text) < 0)
        return NULL;
    PyObject *result = build_spans(where, starts, ends, term, span_type, limit, &new_text);
    free_new_text(&new_text);
    return result;
}

/* ---- a page's spans per concept, built on first use ------------------------------------- */

/* What building a found concept's spans takes: SpanBuilder.context, whose tuple owns them. */
typedef struct {
    PyObject *cache; /* the SpanBuilder: a dict, {concept: spans} built so far */
    PyObject *found, *terms, *starts, *ends;
    PyTypeObject *span_type;
    Py_ssize_t limit; /* spans per concept */
    const NewText *new_text;
} Spans;

static int
read_spans(PyObject *cache, PyObject *context, const NewText *new_text, Spans *spans)
{
    if (!PyDict_Check(cache)) {
        PyErr_SetString(PyExc_TypeError, "spans_of must be a dict");
        return -1;
    }
    spans->cache = cache;
    spans->new_text = new_text;
    return PyArg_ParseTuple(context, "O!O!O!O!O!n;context must be (found, terms, starts, ends,"
                            " span type, limit)", &PyDict_Type, &spans->found, &PyList_Type,
                            &spans->terms, &PyList_Type, &spans->starts, &PyList_Type,
                            &spans->ends, &PyType_Type, &spans->span_type, &spans->limit)
               ? 0
               : -1;
}

/* spans_of[concept], built and stored on first use: a new reference, NULL on error. */
static PyObject *
concept_spans(const Spans *spans, PyObject *concept)
{
    PyObject *built = PyDict_GetItemWithError(spans->cache, concept);
    if (built != NULL)
        return Py_NewRef(built);
    if (PyErr_Occurred())
        return NULL;
    PyObject *where = PyDict_GetItemWithError(spans->found, concept);
    if (where == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, concept);
        return NULL;
    }
    Py_ssize_t index = PyLong_AsSsize_t(concept);
    if (index == -1 && PyErr_Occurred())
        return NULL;
    PyObject *term = index >= 0 && index < PyList_GET_SIZE(spans->terms)
                         ? PyList_GET_ITEM(spans->terms, index)
                         : NULL;
    if (term == NULL || !PyTuple_Check(term) || PyTuple_GET_SIZE(term) < 1) {
        PyErr_SetString(PyExc_IndexError, "a found concept has no compiled term");
        return NULL;
    }
    built = build_spans(where, spans->starts, spans->ends, PyTuple_GET_ITEM(term, 0),
                        spans->span_type, spans->limit, spans->new_text);
    if (built != NULL && PyDict_SetItem(spans->cache, concept, built) < 0)
        Py_CLEAR(built);
    return built;
}

/* The spans of every concept, then their merge: a new tuple. */
static PyObject *
merged_spans(const Spans *spans, PyObject *const *concepts, Py_ssize_t count, Py_ssize_t limit)
{
    PyObject *small[16];
    PyObject **groups = count <= 16 ? small : PyMem_New(PyObject *, count);
    if (groups == NULL)
        return PyErr_NoMemory();
    Py_ssize_t got = 0;
    PyObject *result = NULL;
    for (; got < count; got++) {
        groups[got] = concept_spans(spans, concepts[got]);
        if (groups[got] == NULL)
            goto done;
    }
    result = merge_groups(groups, count, limit, spans->new_text);
done:
    for (Py_ssize_t i = 0; i < got; i++)
        Py_DECREF(groups[i]);
    if (groups != small)
        PyMem_Free(groups);
    return result;
}

/* ---- the postings walk ------------------------------------------------------------------ */

/* postings[concept] as a list, borrowed; NULL with an exception set if it is none. */
static PyObject *
postings_of(PyObject *postings, PyObject *concept)
{
    Py_ssize_t index = PyLong_AsSsize_t(concept);
    if (index == -1 && PyErr_Occurred())
        return NULL;
    if (index < 0 || index >= PyList_GET_SIZE(postings)) {
        PyErr_SetString(PyExc_IndexError, "a found concept has no postings");
        return NULL;
    }
    PyObject *lists = PyList_GET_ITEM(postings, index);
    if (!PyList_Check(lists)) {
        PyErr_SetString(PyExc_TypeError, "postings must be lists");
        return NULL;
    }
    return lists;
}

/* {list: [concepts found]} in scan order, and the set of lists to judge. */
static int
walk_postings(PyObject *found, PyObject *simple, PyObject *judged_postings,
              PyObject *concepts_of, PyObject *judged)
{
    Py_ssize_t position = 0;
    PyObject *concept, *where;
    while (PyDict_Next(found, &position, &concept, &where)) {
        PyObject *lists = postings_of(simple, concept);
        if (lists == NULL)
            return -1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lists); i++) {
            PyObject *list_id = PyList_GET_ITEM(lists, i);
            PyObject *held = PyDict_GetItemWithError(concepts_of, list_id);
            if (held != NULL) {
                if (PyList_Append(held, concept) < 0)
                    return -1;
                continue;
            }
            if (PyErr_Occurred())
                return -1;
            held = PyList_New(1);
            if (held == NULL)
                return -1;
            Py_INCREF(concept);
            PyList_SET_ITEM(held, 0, concept);
            int failed = PyDict_SetItem(concepts_of, list_id, held);
            Py_DECREF(held);
            if (failed)
                return -1;
        }
        lists = postings_of(judged_postings, concept);
        if (lists == NULL)
            return -1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lists); i++)
            if (PySet_Add(judged, PyList_GET_ITEM(lists, i)) < 0)
                return -1;
    }
    return 0;
}

PyDoc_STRVAR(collect_doc,
"collect(found, simple, judged, spans_of, context, limit, new_text) -> (matches, to_judge)\n\n"
"Walk the found concepts' postings: every list in simple[concept] matches, with its\n"
"concept's spans when one of its concepts was found, else the merge of its concepts' spans\n"
"(see merge); the lists in judged[concept] are returned as a set to judge. A concept's\n"
"spans are spans_of[concept], built there on first use from context (SpanBuilder.context).");

static PyObject *
collect(PyObject *module, PyObject *args)
{
    PyObject *found, *simple, *judged_postings, *spans_of, *context, *ranges;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "O!O!O!OOnO:collect", &PyDict_Type, &found, &PyList_Type,
                          &simple, &PyList_Type, &judged_postings, &spans_of, &context, &limit,
                          &ranges))
        return NULL;
    if (limit < 0) {
        PyErr_SetString(PyExc_ValueError, "limit must not be negative");
        return NULL;
    }
    NewText new_text;
    if (read_new_text(ranges, &new_text) < 0)
        return NULL;
    Spans spans;
    PyObject *concepts_of = PyDict_New();
    PyObject *judged = PySet_New(NULL);
    PyObject *matches = PyDict_New();
    PyObject *result = NULL;
    if (concepts_of == NULL || judged == NULL || matches == NULL)
        goto done;
    if (read_spans(spans_of, context, &new_text, &spans) < 0)
        goto done;
    if (walk_postings(found, simple, judged_postings, concepts_of, judged) < 0)
        goto done;
    Py_ssize_t position = 0;
    PyObject *list_id, *concepts;
    while (PyDict_Next(concepts_of, &position, &list_id, &concepts)) {
        PyObject *kept;
        if (PyList_GET_SIZE(concepts) == 1)
            kept = concept_spans(&spans, PyList_GET_ITEM(concepts, 0));
        else
            kept = merged_spans(&spans, PySequence_Fast_ITEMS(concepts),
                                PyList_GET_SIZE(concepts), limit);
        if (kept == NULL)
            goto done;
        int failed = PyDict_SetItem(matches, list_id, kept);
        Py_DECREF(kept);
        if (failed)
            goto done;
    }
    result = PyTuple_Pack(2, matches, judged);
done:
    free_new_text(&new_text);
    Py_XDECREF(concepts_of);
    Py_XDECREF(judged);
    Py_XDECREF(matches);
    return result;
}

/* ---- judging ------------------------------------------------------------------------- */

/* Entry fields (spans.Entry): positives, match_all, concepts, sites, excluded_sites. */
enum { POSITIVES, MATCH_ALL, CONCEPTS, SITES, EXCLUDED_SITES, ENTRY_SIZE };

/* One list's spans if it matches, None if not (new references), NULL on error: the steps
 * of spans.judge. */
static PyObject *
judge_one(PyObject *entry, PyObject *found, PyObject *host, PyObject *host_allowed,
          const Spans *spans, Py_ssize_t limit)
{
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) < ENTRY_SIZE ||
        !PyTuple_Check(PyTuple_GET_ITEM(entry, CONCEPTS)) ||
        !PyTuple_Check(PyTuple_GET_ITEM(entry, SITES)) ||
        !PyTuple_Check(PyTuple_GET_ITEM(entry, EXCLUDED_SITES))) {
        PyErr_SetString(PyExc_TypeError, "a list's entry must be a spans.Entry");
        return NULL;
    }
    Py_ssize_t positives = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, POSITIVES));
    if (positives == -1 && PyErr_Occurred())
        return NULL;
    int match_all = PyObject_IsTrue(PyTuple_GET_ITEM(entry, MATCH_ALL));
    if (match_all < 0)
        return NULL;
    PyObject *concepts = PyTuple_GET_ITEM(entry, CONCEPTS);
    Py_ssize_t count = PyTuple_GET_SIZE(concepts), matched = 0, distinct = 0;
    PyObject *small[16];
    PyObject **unique = count <= 16 ? small : PyMem_New(PyObject *, count);
    PyObject *result = NULL;
    if (unique == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t position = 0; position < count; position++) {
        PyObject *concept = PyTuple_GET_ITEM(concepts, position);
        int here = PyDict_Contains(found, concept);
        if (here < 0)
            goto done;
        if (!here)
            continue;
        if (position >= positives)
            goto rejected; /* an exclusion was found */
        matched++;
        int seen = 0;
        for (Py_ssize_t i = 0; i < distinct && !seen; i++) {
            seen = PyObject_RichCompareBool(unique[i], concept, Py_EQ);
            if (seen < 0)
                goto done;
        }
        if (!seen)
            unique[distinct++] = concept;
    }
    if (!matched || (match_all && matched < positives))
        goto rejected;
    PyObject *sites = PyTuple_GET_ITEM(entry, SITES);
    PyObject *excluded = PyTuple_GET_ITEM(entry, EXCLUDED_SITES);
    if (PyTuple_GET_SIZE(sites) || PyTuple_GET_SIZE(excluded)) {
        PyObject *allowed = PyObject_CallFunctionObjArgs(host_allowed, host, sites, excluded, NULL);
        if (allowed == NULL)
            goto done;
        int yes = PyObject_IsTrue(allowed);
        Py_DECREF(allowed);
        if (yes < 0)
            goto done;
        if (!yes)
            goto rejected;
    }
    if (matched == 1) {
        result = concept_spans(spans, unique[0]);
        goto done;
    }
    result = merged_spans(spans, unique, distinct, limit);
    goto done;
rejected:
    result = Py_NewRef(Py_None);
done:
    if (unique != small)
        PyMem_Free(unique);
    return result;
}

PyDoc_STRVAR(judge_doc,
"judge(list_ids, entries, found, host, host_allowed, spans_of, context, limit, new_text,\n"
"      matches)\n\n"
"Add to matches the spans of every list in list_ids that matches, as spans.judge decides:\n"
"any or all of its terms found, no exclusion, host_allowed(host, sites, excluded) when it\n"
"names sites. Lists missing from entries (removed meanwhile) are skipped. Spans as collect.");

static PyObject *
judge(PyObject *module, PyObject *args)
{
    PyObject *list_ids, *entries, *found, *host, *host_allowed, *spans_of, *context, *ranges;
    PyObject *matches;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "OO!O!OOOOnOO!:judge", &list_ids, &PyDict_Type, &entries,
                          &PyDict_Type, &found, &host, &host_allowed, &spans_of, &context,
                          &limit, &ranges, &PyDict_Type, &matches))
        return NULL;
    NewText new_text;
    if (read_new_text(ranges, &new_text) < 0)
        return NULL;
    Spans spans;
    PyObject *iterator = NULL;
    if (read_spans(spans_of, context, &new_text, &spans) < 0 ||
        (iterator = PyObject_GetIter(list_ids)) == NULL) {
        free_new_text(&new_text);
        return NULL;
    }
    PyObject *list_id;
    int failed = 0;
    while (!failed && (list_id = PyIter_Next(iterator)) != NULL) {
        PyObject *entry = PyDict_GetItemWithError(entries, list_id);
        if (entry != NULL) {
            PyObject *kept = judge_one(entry, found, host, host_allowed, &spans, limit);
            if (kept == NULL)
                failed = 1;
            else if (kept != Py_None && PyDict_SetItem(matches, list_id, kept) < 0)
                failed = 1;
            Py_XDECREF(kept);
        }
        else if (PyErr_Occurred()) {
            failed = 1;
        }
        Py_DECREF(list_id);
    }
    Py_DECREF(iterator);
    free_new_text(&new_text);
    if (failed || PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

/* ---- adding a list ---------------------------------------------------------------------- */

PyDoc_STRVAR(add_postings_doc,
"add_postings(terms, by_identity, stored, postings, list_id, concept_of) -> tuple\n\n"
"KeywordIndex.add's loop: post list_id under each term's concept, once per concept, and\n"
"return the concepts per term position. A term is known by its identity (by_identity[id(term)]\n"
"whose stored term is it); concept_of(term) gives the concept of any other.");

static PyObject *
add_postings(PyObject *module, PyObject *args)
{
    PyObject *terms, *by_identity, *stored, *postings, *list_id, *concept_of;
    if (!PyArg_ParseTuple(args, "O!O!O!O!OO:add_postings", &PyTuple_Type, &terms, &PyDict_Type,
                          &by_identity, &PyList_Type, &stored, &PyList_Type, &postings,
                          &list_id, &concept_of))
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(terms);
    PyObject *concepts = PyTuple_New(count);
    if (concepts == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *term = PyTuple_GET_ITEM(terms, i);
        PyObject *identity = PyLong_FromVoidPtr(term);
        if (identity == NULL)
            goto error;
        PyObject *concept = PyDict_GetItemWithError(by_identity, identity);
        Py_DECREF(identity);
        if (concept == NULL && PyErr_Occurred())
            goto error;
        if (concept != NULL) {
            Py_ssize_t index = PyLong_AsSsize_t(concept);
            if (index == -1 && PyErr_Occurred())
                goto error;
            if (index >= 0 && index < PyList_GET_SIZE(stored) &&
                PyList_GET_ITEM(stored, index) == term)
                Py_INCREF(concept);
            else
                concept = NULL; /* an id reused by another object since */
        }
        if (concept == NULL) {
            concept = PyObject_CallOneArg(concept_of, term);
            if (concept == NULL)
                goto error;
        }
        PyTuple_SET_ITEM(concepts, i, concept);
        int seen = 0;
        for (Py_ssize_t j = 0; j < i && !seen; j++) {
            seen = PyObject_RichCompareBool(PyTuple_GET_ITEM(concepts, j), concept, Py_EQ);
            if (seen < 0)
                goto error;
        }
        if (seen) /* the same line twice: one posting, two positions */
            continue;
        PyObject *lists = postings_of(postings, concept);
        if (lists == NULL || PyList_Append(lists, list_id) < 0)
            goto error;
    }
    return concepts;
error:
    Py_DECREF(concepts);
    return NULL;
}

/* ---- module ----------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, scan_doc},
    {"collect", collect, METH_VARARGS, collect_doc},
    {"merge", merge, METH_VARARGS, merge_doc},
    {"spans", spans, METH_VARARGS, spans_doc},
    {"judge", judge, METH_VARARGS, judge_doc},
    {"add_postings", add_postings, METH_VARARGS, add_postings_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "clipping.matching._speedups",
    "The keyword index's per-page loops in C (pure-Python reference: index.py, spans.py).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

/* clipping/matching/native.py's API: raise both when a function's arguments change. */
#define API 3

PyMODINIT_FUNC
PyInit__speedups(void)
{
    PyObject *created = PyModule_Create(&module);
    if (created != NULL && PyModule_AddIntConstant(created, "API", API) < 0)
        Py_CLEAR(created);
    return created;
}
