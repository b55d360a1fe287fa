#include "analysis/io/process.h"
#include "analysis/io/regex.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace sl {
namespace {

int64_t now_ms()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

bool is_executable_file(const std::string& p)
{
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// Splits a byte stream into lines for the callback; keeps the unfinished tail.
struct LineSplitter {
    std::string pending;
    bool is_stderr = false;
    void feed(const char* data, size_t n, const ProcessOptions& o)
    {
        pending.append(data, n);
        size_t start = 0;
        for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
            if (o.on_line)
                o.on_line(pending.substr(start, nl - start), is_stderr);
        }
        pending.erase(0, start);
    }
    void flush(const ProcessOptions& o)
    {
        if (!pending.empty() && o.on_line)
            o.on_line(pending, is_stderr);
        pending.clear();
    }
};

} // namespace

std::string find_on_path(const std::string& name)
{
    if (name.empty())
        return {};
    if (name.find('/') != std::string::npos)
        return is_executable_file(name) ? name : std::string();
    const char* path = std::getenv("PATH");
    std::stringstream ss(path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string dir; std::getline(ss, dir, ':');) {
        const std::string cand = (dir.empty() ? std::string(".") : dir) + "/" + name;
        if (is_executable_file(cand))
            return cand;
    }
    return {};
}

std::string shell_quote_command(const std::vector<std::string>& argv)
{
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty())
            out += ' ';
        const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-+=/.,:@%") == std::string::npos;
        if (plain) {
            out += a;
            continue;
        }
        out += '\'';
        for (char c : a)
            out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& o)
{
    ProcessResult r;
    if (argv.empty()) {
        r.error = "no command given";
        return r;
    }
    const std::string exe = find_on_path(argv[0]);
    if (exe.empty()) {
        r.error = "'" + argv[0] + "' was not found" +
                  (argv[0].find('/') == std::string::npos ? " on PATH" : " or is not executable");
        return r;
    }
    int out_fd = -1;
    if (!o.stdout_file.empty()) {
        out_fd = ::open(o.stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out_fd < 0) {
            r.error = "cannot write " + o.stdout_file + ": " + std::strerror(errno);
            return r;
        }
    }
    int outp[2] = {-1, -1}, errp[2] = {-1, -1}, statp[2] = {-1, -1};
    if (::pipe2(outp, O_CLOEXEC) != 0 || ::pipe2(errp, O_CLOEXEC) != 0 || ::pipe2(statp, O_CLOEXEC) != 0) {
        r.error = std::string("pipe: ") + std::strerror(errno);
        for (int fd : {outp[0], outp[1], errp[0], errp[1], statp[0], statp[1], out_fd})
            if (fd >= 0)
                ::close(fd);
        return r;
    }
    // Everything the child needs is prepared before fork (no allocation after it).
    std::vector<std::string> env_store;
    for (char** e = environ; e && *e; ++e) {
        const std::string kv = *e;
        const auto eq = kv.find('=');
        if (eq != std::string::npos && o.env.count(kv.substr(0, eq)))
            continue;
        env_store.push_back(kv);
    }
    for (const auto& [k, v] : o.env)
        env_store.push_back(k + "=" + v);
    std::vector<char*> envp, args;
    for (auto& s : env_store)
        envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_store = argv;
    for (auto& s : argv_store)
        args.push_back(s.data());
    args.push_back(nullptr);

    const int64_t t0 = now_ms();
    const pid_t pid = ::fork();
    if (pid < 0) {
        r.error = std::string("fork: ") + std::strerror(errno);
        return r;
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGPIPE, SIG_DFL);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            ::dup2(devnull, 0);
        ::dup2(out_fd >= 0 ? out_fd : outp[1], 1);
        ::dup2(errp[1], 2);
        int err = 0;
        if (!o.cwd.empty() && ::chdir(o.cwd.c_str()) != 0)
            err = errno;
        else {
            ::execve(exe.c_str(), args.data(), envp.data());
            err = errno;
        }
        [[maybe_unused]] auto w = ::write(statp[1], &err, sizeof err);
        ::_exit(127);
    }
    ::setpgid(pid, pid);   // also in the parent: no race with the first kill()
    ::close(outp[1]);
    ::close(errp[1]);
    ::close(statp[1]);
    if (out_fd >= 0)
        ::close(out_fd);
    int child_errno = 0;
    const ssize_t got = ::read(statp[0], &child_errno, sizeof child_errno);
    ::close(statp[0]);
    r.started = got <= 0;
    if (!r.started)
        r.error = (o.cwd.empty() || child_errno != ENOENT ? "cannot run " + exe : "cannot enter " + o.cwd) + ": " +
                  std::strerror(child_errno);

    LineSplitter so, se;
    se.is_stderr = true;
    int fds[2] = {outp[0], errp[0]};
    bool open_fd[2] = {true, true};
    bool reaped = false;
    int status = 0;
    int64_t stop_sent_at = -1, reaped_at = -1;
    char buf[65536];
    for (;;) {
        const int64_t t = now_ms();
        if (stop_sent_at < 0 && !reaped) {
            const bool cancel = o.cancel && o.cancel->load();
            const bool timeout = o.timeout_ms > 0 && t - t0 >= o.timeout_ms;
            if (cancel || timeout) {
                r.cancelled = cancel;
                r.timed_out = !cancel && timeout;
                ::kill(-pid, SIGINT);
                stop_sent_at = t;
            }
        } else if (stop_sent_at >= 0 && t - stop_sent_at >= o.grace_ms) {
            ::kill(-pid, SIGKILL);   // the child and whatever it left behind in its group
            stop_sent_at = t + 1'000'000'000;   // once
        }
        if (!reaped) {
            const pid_t w = ::waitpid(pid, &status, WNOHANG);
            if (w == pid) {
                reaped = true;
                reaped_at = t;
                if (stop_sent_at >= 0)
                    ::kill(-pid, SIGKILL);   // stopped on request: its descendants go too
            }
        }
        // After the child exits, read what is left; descendants holding the pipes open get 300 ms.
        if (reaped && ((!open_fd[0] && !open_fd[1]) || t - reaped_at > 300))
            break;
        pollfd p[2];
        nfds_t n = 0;
        int which[2];
        for (int i = 0; i < 2; ++i)
            if (open_fd[i]) {
                p[n] = {fds[i], POLLIN, 0};
                which[n++] = i;
            }
        if (n == 0) {
            ::usleep(20'000);
            continue;
        }
        if (::poll(p, n, 50) <= 0)
            continue;
        for (nfds_t k = 0; k < n; ++k) {
            if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const int i = which[k];
            const ssize_t m = ::read(fds[i], buf, sizeof buf);
            if (m <= 0) {
                open_fd[i] = false;
                continue;
            }
            (i == 0 ? so : se).feed(buf, static_cast<size_t>(m), o);
        }
    }
    so.flush(o);
    se.flush(o);
    ::close(outp[0]);
    ::close(errp[0]);
    r.wall_ms = now_ms() - t0;
    if (WIFEXITED(status))
        r.exit_code = r.started ? WEXITSTATUS(status) : -1;
    else if (WIFSIGNALED(status))
        r.signal = WTERMSIG(status);
    return r;
}

std::vector<int> parse_version(const std::string& text)
{
    static const Regex re(R"((\d+)(\.\d+)+)");
    std::vector<std::string_view> m;
    if (!re.search(text, m))
        return {};
    std::vector<int> v;
    std::stringstream ss{std::string(m[0])};
    for (std::string part; std::getline(ss, part, '.');)
        v.push_back(std::atoi(part.c_str()));
    return v;
}

bool version_less(const std::vector<int>& a, const std::vector<int>& b)
{
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
        const int x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
        if (x != y)
            return x < y;
    }
    return false;
}

ToolInfo find_tool(const std::string& name, const std::vector<int>& minimum, const std::string& where_to_get,
                   int64_t timeout_ms)
{
    ToolInfo t;
    t.name = name;
    std::string need;
    for (size_t i = 0; i < minimum.size(); ++i)
        need += (i ? "." : "") + std::to_string(minimum[i]);
    t.path = find_on_path(name);
    if (t.path.empty()) {
        t.error = "'" + name + "' was not found on PATH. Sightline needs " + name + " " + need +
                  " or newer to run this step; " + where_to_get;
        return t;
    }
    std::string all;
    ProcessOptions o;
    o.timeout_ms = timeout_ms;
    o.grace_ms = 500;
    o.on_line = [&](const std::string& line, bool) {
        all += line + "\n";
        if (t.version_text.empty() && !parse_version(line).empty())
            t.version_text = line;
    };
    const ProcessResult r = run_process({t.path, "--version"}, o);
    if (!r.ok() || t.version_text.empty()) {
        t.error = "'" + t.path + " --version' " +
                  (r.timed_out ? std::string("did not answer in time")
                               : !r.started ? r.error
                                            : "gave no version (exit " + std::to_string(r.exit_code) + ")") +
                  "; Sightline needs " + name + " " + need + " or newer; " + where_to_get;
        return t;
    }
    t.version = parse_version(t.version_text);
    if (version_less(t.version, minimum))
        t.error = t.path + " is version " + [&] {
            std::string s;
            for (size_t i = 0; i < t.version.size(); ++i)
                s += (i ? "." : "") + std::to_string(t.version[i]);
            return s;
        }() + ", older than the " + need + " Sightline needs; " + where_to_get;
    return t;
}

} // namespace sl
