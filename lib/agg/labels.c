/* Constant labels: validated as Prometheus requires, kept sorted by name
 * so that equal label sets serialize and print alike. */
#include <string.h>

#include "agg/agg.h"

static bool label_name_valid(const char *s, size_t n)
{
    if (n == 0 || n > LLMLAT_LABEL_MAX || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    if (n >= 2 && s[0] == '_' && s[1] == '_') /* Prometheus's own */
        return false;
    /* The labels the expositions write themselves: a constant label of
     * the same name would give a series the name twice. */
    static const char *const OWN[] = { "le", "quantile", "version", "convention", "mode" };
    for (size_t i = 0; i < sizeof OWN / sizeof OWN[0]; i++)
        if (strcmp(s, OWN[i]) == 0)
            return false;
    return true;
}

/* Well-formed UTF-8: no overlong form, no surrogate, nothing above
 * U+10FFFF, no sequence cut short. */
static bool utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                                   : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (len == 0 || len > n - i)
            return false;
        unsigned cp = len == 1 ? c : c & (0x7f >> len);
        for (size_t j = 1; j < len; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + j] & 0x3f);
        }
        static const unsigned MIN_OF_LEN[5] = { 0, 0, 0x80, 0x800, 0x10000 };
        if (cp < MIN_OF_LEN[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += len;
    }
    return true;
}

/* Where name is, or would be inserted. */
static size_t label_slot(const llmlat_agg *a, const char *name, bool *found)
{
    size_t i = 0;
    while (i < a->n_labels && strcmp(a->labels[i].name, name) < 0)
        i++;
    *found = i < a->n_labels && strcmp(a->labels[i].name, name) == 0;
    return i;
}

LLMLAT_API int32_t llmlat_agg_set_label(llmlat_agg *a, const char *name, const char *value)
{
    if (!a || !name)
        return LLMLAT_EINVAL;
    size_t nn = strlen(name), nv = value ? strlen(value) : 0;
    if (!label_name_valid(name, nn) || nv > LLMLAT_LABEL_MAX ||
        !utf8_valid((const unsigned char *)value, nv))
        return LLMLAT_EINVAL;
    bool found;
    size_t i = label_slot(a, name, &found);
    if (nv == 0) { /* removal */
        if (found) {
            alloc_free(&a->al, a->labels[i].name);
            memmove(a->labels + i, a->labels + i + 1, (a->n_labels - i - 1) * sizeof *a->labels);
            a->n_labels--;
        }
        return LLMLAT_OK;
    }
    if (!found && a->n_labels == LLMLAT_MAX_LABELS)
        return LLMLAT_EINVAL;
    char *block = alloc_malloc(&a->al, nn + nv + 2);
    if (!block)
        return LLMLAT_ENOMEM;
    memcpy(block, name, nn + 1);
    memcpy(block + nn + 1, value, nv + 1);
    if (found) {
        alloc_free(&a->al, a->labels[i].name);
    } else {
        memmove(a->labels + i + 1, a->labels + i, (a->n_labels - i) * sizeof *a->labels);
        a->n_labels++;
    }
    a->labels[i] = (agg_label){ block, block + nn + 1 };
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_agg_label_count(const llmlat_agg *a, size_t *n)
{
    if (!a || !n)
        return LLMLAT_EINVAL;
    *n = a->n_labels;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_agg_get_label(const llmlat_agg *a, size_t i, const char **name,
                                        const char **value)
{
    if (!a || !name || !value || i >= a->n_labels)
        return LLMLAT_EINVAL;
    *name = a->labels[i].name;
    *value = a->labels[i].value;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE void agg_labels_free(llmlat_agg *a)
{
    for (size_t i = 0; i < a->n_labels; i++)
        alloc_free(&a->al, a->labels[i].name);
    a->n_labels = 0;
}

LLMLAT_PRIVATE size_t agg_labels_memory(const llmlat_agg *a)
{
    size_t bytes = 0;
    for (size_t i = 0; i < a->n_labels; i++)
        bytes += strlen(a->labels[i].name) + strlen(a->labels[i].value) + 2;
    return bytes;
}
