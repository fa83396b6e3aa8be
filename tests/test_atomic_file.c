/* Output files: fc_write_file_atomic on every kind of path (regular file,
 * symlink, FIFO, device, "-", directory, missing directory), the temporary
 * file's creation against planted symlinks, the cause of a failed write, an
 * interrupted write cleaned up from a signal handler, and fc_output_check. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "api/output_path.h"

static char dir[256];

/* The writer's random suffix, under the test's control: while forced_byte
 * is set, every "random" byte is that value, so the temporary's name is
 * known in advance and something can be planted at it. (This definition
 * takes precedence over libc's for the statically linked library.) */
static int forced_byte = -1;
ssize_t getrandom(void *buf, size_t n, unsigned int flags) {
    if (forced_byte < 0) return syscall(SYS_getrandom, buf, n, flags);
    memset(buf, forced_byte, n);
    return (ssize_t)n;
}

static char *in_dir(char *buf, const char *name) {
    snprintf(buf, 512, "%s/%s", dir, name);
    return buf;
}

static void put(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

static int file_is(const char *path, const char *text) {
    char buf[4096];
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return n == strlen(text) && !memcmp(buf, text, n);
}

/* Regular files whose name holds ".tmp.": leftover temporaries. */
static int temporaries(const char *d) {
    DIR *h = opendir(d);
    int n = 0;
    char path[512];
    struct stat st;
    for (struct dirent *e; h && (e = readdir(h));) {
        snprintf(path, sizeof path, "%s/%s", d, e->d_name);
        n += strstr(e->d_name, ".tmp.") && lstat(path, &st) == 0 && S_ISREG(st.st_mode);
    }
    if (h) closedir(h);
    return n;
}

static fc_status body_text(FILE *f, void *ctx) {
    fputs(ctx, f);
    return FC_OK;
}

static fc_status body_fails(FILE *f, void *ctx) {
    (void)ctx;
    fputs("half of the new cont", f);
    return fc_error(FC_ERR_INVALID, "simulated failure after %d bytes", 20);
}

/* 200 KB in small fprintf calls, checking nothing: the writer must notice
 * a failed write and say why. */
static fc_status body_large(FILE *f, void *ctx) {
    (void)ctx;
    for (int i = 0; i < 20000; i++) fprintf(f, "row %05d\n", i);
    return FC_OK;
}

static void test_regular_file(void) {
    char path[512];
    in_dir(path, "target.csv");
    put(path, "old content");
    chmod(path, 0640);
    CHECK(fc_write_file_atomic(path, body_fails, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), path);
    CHECK_CONTAINS(fc_last_error(), "simulated failure");
    CHECK(file_is(path, "old content"));
    CHECK(temporaries(dir) == 0);

    CHECK(fc_write_file_atomic(path, body_text, "new content") == FC_OK);
    CHECK(file_is(path, "new content"));
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
    CHECK(temporaries(dir) == 0);
    unlink(path);

    /* a new file gets 0666 less the umask, as any file fcast creates */
    mode_t old = umask(022);
    CHECK(fc_write_file_atomic(in_dir(path, "fresh.csv"), body_text, "x") == FC_OK);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
    umask(old);
    unlink(path);
}

static void test_bad_paths(void) {
    char path[512];
    mkdir(in_dir(path, "adir"), 0755);
    CHECK(fc_write_file_atomic(path, body_text, "x") == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "is a directory");
    rmdir(path);
    CHECK(fc_write_file_atomic(in_dir(path, "no/such/dir/out.csv"), body_text, "x") == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), path);
    CHECK_CONTAINS(fc_last_error(), strerror(ENOENT));
    char link[512];
    CHECK(symlink("missing-target", in_dir(link, "dangling")) == 0);
    CHECK(fc_write_file_atomic(link, body_text, "x") == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "symbolic link");
    CHECK(access(in_dir(path, "missing-target"), F_OK) != 0);
    unlink(link);
}

/* The link stays a link to the same file; the file has the new contents. */
static void test_symlink(void) {
    char target[512], link[512], got[512];
    put(in_dir(target, "real.csv"), "old");
    chmod(target, 0600);
    CHECK(symlink("real.csv", in_dir(link, "link.csv")) == 0);
    CHECK(fc_write_file_atomic(link, body_text, "new") == FC_OK);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    ssize_t n = readlink(link, got, sizeof got - 1);
    CHECK(n == 8 && !memcmp(got, "real.csv", 8));
    CHECK(file_is(target, "new"));
    CHECK(stat(target, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(temporaries(dir) == 0);
    unlink(link);
    unlink(target);
}

/* A symlink planted at the temporary's name (the old predictable
 * "<out>.tmp.<pid>", or the new random one made predictable here) must
 * neither be followed nor make the write fail while other names are free. */
static void test_planted_symlinks(void) {
    char out[512], victim[512], old_name[600], new_name[512];
    put(in_dir(victim, "victim"), "precious");
    put(in_dir(out, "out.csv"), "old");
    snprintf(old_name, sizeof old_name, "%s.tmp.%ld", out, (long)getpid());
    CHECK(symlink(victim, old_name) == 0);
    CHECK(symlink(victim, in_dir(new_name, ".out.csv.tmp.AAAAAA")) == 0);   /* byte 0 -> 'A' */
    forced_byte = 0;
    CHECK(fc_write_file_atomic(out, body_text, "new") == FC_ERR_IO);   /* every attempt meets the link */
    CHECK_CONTAINS(fc_last_error(), strerror(EEXIST));
    CHECK(file_is(out, "old"));
    CHECK(file_is(victim, "precious"));
    forced_byte = -1;
    CHECK(fc_write_file_atomic(out, body_text, "new") == FC_OK);
    CHECK(file_is(out, "new"));
    CHECK(file_is(victim, "precious"));
    struct stat st;
    CHECK(lstat(new_name, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(lstat(old_name, &st) == 0 && S_ISLNK(st.st_mode));
    unlink(old_name), unlink(new_name), unlink(victim), unlink(out);
}

static void test_fifo(void) {
    char fifo[512], got[512];
    CHECK(mkfifo(in_dir(fifo, "fifo"), 0600) == 0);
    time_t t0 = time(NULL);
    CHECK(fc_write_file_atomic(fifo, body_text, "x") == FC_ERR_IO);   /* no reader: at once */
    CHECK_CONTAINS(fc_last_error(), "no reader");
    CHECK(time(NULL) - t0 < 5);
    pid_t child = fork();
    if (child == 0) {   /* the reader: copies the FIFO to a file */
        int in = open(fifo, O_RDONLY), out = open(in_dir(got, "from_fifo"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        char buf[256];
        for (ssize_t n; (n = read(in, buf, sizeof buf)) > 0;) (void)!write(out, buf, (size_t)n);
        _exit(0);
    }
    fc_status s = FC_ERR_IO;
    for (int i = 0; i < 500 && s != FC_OK; i++) {   /* until the reader has the FIFO open */
        s = fc_write_file_atomic(fifo, body_text, "through the fifo");
        if (s != FC_OK) usleep(10000);
    }
    CHECK(s == FC_OK);
    int status;
    waitpid(child, &status, 0);
    CHECK(file_is(in_dir(got, "from_fifo"), "through the fifo"));
    struct stat st;
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK(temporaries(dir) == 0);
    unlink(fifo), unlink(got);
}

/* A null device of our own (never /dev/null itself): written through, and
 * still a device afterwards, also through a symlink. Needs root. */
static void test_device(void) {
    char node[512], link[512];
    if (mknod(in_dir(node, "null"), S_IFCHR | 0666, makedev(1, 3)) != 0) {
        printf("device case skipped: mknod: %s\n", strerror(errno));
        return;
    }
    CHECK(symlink(node, in_dir(link, "null-link")) == 0);
    CHECK(fc_write_file_atomic(node, body_text, "gone") == FC_OK);
    CHECK(fc_write_file_atomic(link, body_text, "gone") == FC_OK);
    struct stat st;
    CHECK(lstat(node, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(temporaries(dir) == 0);
    unlink(link), unlink(node);
}

static void test_stdout(void) {
    char path[512];
    int saved = dup(STDOUT_FILENO), fd = open(in_dir(path, "stdout.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    fflush(stdout);
    dup2(fd, STDOUT_FILENO);
    fc_status s = fc_write_file_atomic("-", body_text, "to standard output\n");
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved), close(fd);
    CHECK(s == FC_OK);
    CHECK(file_is(path, "to standard output\n"));
    unlink(path);

    /* a closed pipe: the cause, not "write error" */
    int p[2];
    CHECK(pipe(p) == 0);
    close(p[0]);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    saved = dup(STDOUT_FILENO);
    dup2(p[1], STDOUT_FILENO);
    s = fc_write_file_atomic("-", body_large, NULL);
    dup2(saved, STDOUT_FILENO);
    close(saved), close(p[1]);
    signal(SIGPIPE, old);
    CHECK(s == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "standard output");
    CHECK_CONTAINS(fc_last_error(), strerror(EPIPE));
}

/* A file-size limit stands in for a full disk (cli_output_paths.sh fills a
 * real tmpfs): the previous file survives, the cause is named, no
 * temporary is left. In a child, since the limit is per process. */
static void test_write_failure_cause(void) {
    char path[512];
    put(in_dir(path, "big.csv"), "previous");
    pid_t child = fork();
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &(struct rlimit){4096, 4096});
        fc_status s = fc_write_file_atomic(path, body_large, NULL);
        _exit(s == FC_ERR_IO && strstr(fc_last_error(), strerror(EFBIG)) && strstr(fc_last_error(), path) ? 0 : 1);
    }
    int status;
    waitpid(child, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
    CHECK(file_is(path, "previous"));
    CHECK(temporaries(dir) == 0);
    unlink(path);
}

/* A signal arriving mid-write: the handler's fc_atomic_file_abandon removes
 * the temporary, and the old file is untouched. */
static void on_signal(int sig) {
    (void)sig;
    fc_atomic_file_abandon();
    _exit(130);
}

static fc_status body_interrupted(FILE *f, void *ctx) {
    (void)ctx;
    fputs("partial", f);
    fflush(f);
    raise(SIGUSR1);
    return FC_OK;
}

static void test_abandon(void) {
    char path[512];
    put(in_dir(path, "model.bin"), "previous model");
    pid_t child = fork();
    if (child == 0) {
        signal(SIGUSR1, on_signal);
        fc_write_file_atomic(path, body_interrupted, NULL);
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 130);
    CHECK(file_is(path, "previous model"));
    CHECK(temporaries(dir) == 0);
    fc_atomic_file_abandon();   /* nothing in flight: harmless */
    unlink(path);
}

static void test_output_check(void) {
    char data[512], out[512], sym[512], hard[512], sub[512];
    put(in_dir(data, "data.csv"), "unique_id,ds,y\n");
    fc_input_path in[2] = {{"--model", NULL}, {"--data", data}};
    CHECK(fc_output_check("--out", in_dir(out, "new.csv"), 0, in, 2) == FC_OK);
    CHECK(fc_output_check("--out", NULL, 0, in, 2) == FC_OK);
    CHECK(fc_output_check("--out", "-", 1, in, 2) == FC_OK);
    CHECK(fc_output_check("--out", "-", 0, in, 2) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "standard output");
    CHECK(fc_output_check("--out", data, 0, in, 2) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "is the input file given to --data");
    CHECK(symlink(data, in_dir(sym, "link.csv")) == 0);
    CHECK(fc_output_check("--out", sym, 0, in, 2) == FC_ERR_INVALID);
    CHECK(link(data, in_dir(hard, "hard.csv")) == 0);
    CHECK(fc_output_check("--out", hard, 0, in, 2) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--data");
    CHECK(chdir(dir) == 0);
    CHECK(fc_output_check("--out", "./data.csv", 0, in, 2) == FC_ERR_INVALID);
    CHECK(chdir(FC_SOURCE_DIR) == 0);
    CHECK(fc_output_check("--out", dir, 0, in, 2) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "is a directory");
    CHECK(fc_output_check("--out", in_dir(sub, "nodir/x.csv"), 0, in, 2) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "does not exist");
    CHECK(fc_output_check("--out", in_dir(sub, "data.csv/x.csv"), 0, in, 2) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), strerror(ENOTDIR));
    unlink(sym), unlink(hard), unlink(data);
}

/* A directory where no file can be created. Root ignores permissions, so as
 * root the check runs in a child that became nobody. */
static void test_unwritable_directory(void) {
    char ro[512], out[512];
    mkdir(in_dir(ro, "ro"), 0555);
    chmod(dir, 0755);
    put(in_dir(out, "ro/x.csv"), "kept");
    pid_t child = fork();
    if (child == 0) {
        if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
        int ok = fc_output_check("--out", out, 0, NULL, 0) == FC_ERR_IO && strstr(fc_last_error(), strerror(EACCES));
        ok = ok && fc_write_file_atomic(out, body_text, "new") == FC_ERR_IO &&
             strstr(fc_last_error(), strerror(EACCES));
        _exit(ok ? 0 : 1);
    }
    int status;
    waitpid(child, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d: %s", status, fc_last_error());
    CHECK(file_is(out, "kept"));
    unlink(out), rmdir(ro);
    chmod(dir, 0700);
}

int main(void) {
    snprintf(dir, sizeof dir, "%s/fc_atomic_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) return 1;
    test_regular_file();
    test_bad_paths();
    test_symlink();
    test_planted_symlinks();
    test_fifo();
    test_device();
    test_stdout();
    test_write_failure_cause();
    test_abandon();
    test_output_check();
    test_unwritable_directory();
    CHECK(rmdir(dir) == 0);   /* everything cleaned up, nothing left over */
    return CHECK_DONE();
}
