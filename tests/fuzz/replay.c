/* The plain driver of a fuzz target when no fuzzer is linked: every file
 * named on the command line (or found directly inside a named directory)
 * is read and passed once to LLVMFuzzerTestOneInput. This is how the
 * committed corpora (seeds and past crashes) run in the normal suite. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            fprintf(stderr, "replay: out of memory\n");
            return 1;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        unsigned char *bigger = realloc(buf, cap * 2);
        if (!bigger)
            free(buf);
        buf = bigger;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp_names(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The regular files directly inside dir, in name order. */
static int run_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: cannot open directory %s\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int bad = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **bigger = realloc(names, cap * sizeof *names);
            if (!bigger) {
                free(path);
                bad = 1;
                break;
            }
            names = bigger;
        }
        if (!path) {
            bad = 1;
            break;
        }
        snprintf(path, len, "%s/%s", dir, e->d_name);
        names[n++] = path;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!bad && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            bad |= run_file(names[i]);
            ++*count;
        }
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    int bad = 0;
    for (int i = 1; i < argc && !bad; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            return 1;
        }
        if (S_ISDIR(st.st_mode)) {
            bad = run_dir(argv[i], &count);
        } else {
            bad = run_file(argv[i]);
            count++;
        }
    }
    if (!bad && count == 0) {
        fprintf(stderr, "replay: no input given\n");
        return 1;
    }
    printf("replayed %zu inputs\n", count);
    return bad;
}
