/*
 * The fixed identifiers and their texts (see ids.h). The texts of layers
 * and gaps are what docs/cli-reference.en.md says of them, shortened.
 */
#include "ids.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>

const struct id_text cordon_event_ids[EVENT_COUNT] = {
	[EVENT_STATUS] = { "bash_sandbox_status", "the start of a run: what is enforced" },
	[EVENT_EXIT] = { "bash_sandbox_exit", "the end of a run: how the command ended" },
	[EVENT_NETWORK_CONNECT] = { "network_connect",
				    "--network allow: one connection the proxy allowed or refused" },
	[EVENT_NETWORK_CONNECT_SUPPRESSED] = { "network_connect_suppressed",
					       "--network allow: the run's network_connect events "
					       "stop here (the exit event counts the rest)" },
};

const struct id_text cordon_mode_ids[3] = {
	[CORDON_MODE_AUTO] = { "auto", "confine when possible, else warn and run unconfined" },
	[CORDON_MODE_REQUIRED] = { "required", "confine or refuse to run" },
	[CORDON_MODE_OFF] = { "off", "run as a plain exec would" },
};

const struct id_text cordon_network_ids[3] = {
	[CORDON_NETWORK_ON] = { "on", "the network is as it is outside" },
	[CORDON_NETWORK_OFF] = { "off", "no IP traffic leaves the command's world" },
	[CORDON_NETWORK_ALLOW] = { "allow",
				   "only through cordon's proxy, to the destinations of the "
				   "allow-list" },
};

const struct id_text cordon_net_decision_ids[NET_DECISION_COUNT] = {
	[NET_ALLOWED] = { "allowed", "the proxy made the connection" },
	[NET_REFUSED] = { "refused", "the proxy refused the connection" },
};

const struct id_text cordon_net_reason_ids[] = {
	{ "not_allowed", "the destination is not on the allow-list" },
	{ "port", "the port is not allowed for that destination" },
	{ "local_address",
	  "the name resolved to a loopback, private, link-local, CGNAT, multicast or host "
	  "address (--network-allow-local allows them)" },
	{ "resolve_failed", "the proxy could not resolve the name" },
	{ "connect_failed", "the proxy could not connect to any vetted address" },
	{ "bad_request", "the request was not one the proxy serves" },
	{ "plain_http",
	  "a plain HTTP request without --network-allow-http (only CONNECT and SOCKS5)" },
	{ "head_too_large", "the request's head was larger than the proxy reads" },
	{ "auth", "the client did not give the run's proxy credential" },
	{ "too_many", "too many connections at once" },
	{ "timeout", "the client or the destination was too slow" },
};
const size_t cordon_net_reason_count =
	sizeof(cordon_net_reason_ids) / sizeof(cordon_net_reason_ids[0]);

const struct id_text cordon_backend_ids[BACKEND_COUNT] = {
	[BACKEND_LANDLOCK] = { "landlock", "Linux: Landlock and the layers around it" },
	[BACKEND_SEATBELT] = { "seatbelt", "macOS: Seatbelt through /usr/bin/sandbox-exec" },
	[BACKEND_NONE] = { "none", "no confinement" },
};

const struct id_text cordon_reason_ids[REASON_COUNT] = {
	[REASON_NONE] = { NULL, "confinement is applied" },
	[REASON_UNAVAILABLE] = { CORDON_REASON_UNAVAILABLE,
				 "confinement is unavailable and the mode is required" },
	[REASON_OFF] = { CORDON_REASON_OFF, "confinement is off (--sandbox off)" },
	[REASON_LANDLOCK_NOT_BUILT_IN] = { "landlock_not_built_in",
					   "this kernel has no Landlock (built without CONFIG_SECURITY_LANDLOCK); use a "
					   "kernel with Landlock ABI 2 or later (Linux 5.19+)" },
	[REASON_LANDLOCK_DISABLED] = { "landlock_disabled",
				       "Landlock is built into this kernel but not enabled; add \"landlock\" to the "
				       "lsm= kernel boot parameter (see /sys/kernel/security/lsm)" },
	[REASON_LANDLOCK_ABI_TOO_OLD] = { "landlock_abi_too_old",
					  "this kernel offers only Landlock ABI 1, which denies every rename and link across "
					  "directories (breaks git, npm, cargo); cordon needs ABI 2 (Linux 5.19+)" },
	[REASON_LANDLOCK_BLOCKED] = { "landlock_blocked",
				      "Landlock is present but restricting a process was refused (a container's seccomp "
				      "filter or another security policy)" },
	[REASON_SEATBELT_NESTED] = { "seatbelt_nested",
				     "cordon already runs inside a Seatbelt sandbox, and macOS cannot apply a second "
				     "one (sandbox-exec exits 71); run cordon outside the other sandbox" },
	[REASON_SEATBELT_MISSING] = { "seatbelt_missing",
				      "/usr/bin/sandbox-exec is not installed on this Mac" },
	[REASON_SEATBELT_PROBE_FAILED] = { "seatbelt_probe_failed",
					   "running /usr/bin/sandbox-exec with a profile that "
					   "allows everything did not succeed" },
	[REASON_NO_BACKEND] = { "no_backend",
				"cordon has no confinement backend for this platform" },
	[REASON_PROTECT_NOT_ENFORCEABLE] = { "protect_not_enforceable",
					     "a path given with --protect cannot be kept read-only on this machine" },
	[REASON_SOCKET_NOT_ENFORCEABLE] = { "allow_socket_not_enforceable",
					    "--allow-socket was given, but this machine cannot restrict Unix "
					    "socket connections, so every socket would be reachable" },
	[REASON_DENY_READ_NOT_ENFORCEABLE] = { "deny_read_not_enforceable",
					       "a path given with --deny-read cannot be made "
					       "unreadable here (inside a writable tree without the "
					       "mount layer, or the Landlock read layer could not be "
					       "built)" },
	[REASON_NETWORK_NOT_ENFORCEABLE] = { "network_not_enforceable",
					     "--network off was given, but this machine can neither "
					     "give the command a network namespace nor refuse its "
					     "IP sockets" },
	[REASON_NETWORK_SOCKET_INHERITED] = { "network_socket_inherited",
					      "--network off was given, but fd 0, 1 or 2 (or a "
					      "--keep-fd fd) is a network socket, which the command "
					      "could connect or send anywhere" },
	[REASON_LIMIT_NOT_ENFORCEABLE] = { "resource_limit_not_enforceable",
					   "--max-procs, --max-memory or --max-tmp was given, but this "
					   "machine cannot bound the whole run by it (see the limits of "
					   "the status event)" },
	[REASON_SCRATCH_HOME_NOT_ENFORCEABLE] = { "scratch_home_not_enforceable",
						  "--scratch-home was given, but the home cannot "
						  "be given a scratch layer here (no mount layer, "
						  "no overlay file system in it, or, not as root, "
						  "a mount below the home)" },
	[REASON_NETWORK_ALLOWLIST_NOT_ENFORCEABLE] = { "network_allowlist_not_enforceable",
						       "--network allow was given, but the command cannot be given a network namespace "
						       "of its own here, so the proxy cannot be its only way out" },
	[REASON_REVIEW_NOT_ENFORCEABLE] = { "review_not_enforceable",
					    "--review was given, but the run's workspace changes cannot be "
					    "held aside here (no mount layer: Landlock alone, confinement "
					    "unavailable or off, or macOS, whose Seatbelt cannot redirect "
					    "writes); the command would write the real workspace, so "
					    "required mode (and off) does not run it" },
	[REASON_CAPABILITIES_NOT_REDUCIBLE] = { "capabilities_not_reducible",
						"the command would keep root's capabilities: capset is "
						"refused here, and with them it could load a kernel "
						"module or use raw I/O, which Landlock does not stop" },
};

const struct id_text cordon_layer_ids[LAYER_COUNT] = {
	[LAYER_LANDLOCK] = { "landlock", "the Landlock write ruleset is applied" },
	[LAYER_NO_NEW_PRIVS] = { "no_new_privs",
				 "setuid files and file capabilities cannot raise privileges" },
	[LAYER_SIGNAL_SCOPE] = { "signal_scope",
				 "Landlock ABI 6: no signals to processes outside the domain" },
	[LAYER_CAPABILITIES] = { "capabilities", "root's capabilities are reduced" },
	[LAYER_FDS_CLOSED] = { "fds_closed", "inherited fds above 2 are closed" },
	[LAYER_MOUNTNS] = { "mount_namespace",
			    "read-only mounts outside the writable set, protected paths, a "
			    "private /dev/shm" },
	[LAYER_SECCOMP] = { "seccomp", "no keystroke injection into the terminal" },
	[LAYER_SEATBELT] = { "seatbelt",
			     "macOS: the Seatbelt profile: writes outside the writable set, Unix "
			     "sockets outside it, signals outside the sandbox refused" },
	[LAYER_PIDNS] = { "pid_namespace",
			  "the run's own PID namespace: no process outside is visible or "
			  "reachable, none of the run outlives it" },
	[LAYER_ABSTRACT_SCOPE] = { "abstract_unix_scope",
				   "Landlock ABI 6: no connect or send to an abstract Unix socket "
				   "bound outside the run" },
	[LAYER_DEVPTS] = { "private_devpts",
			   "a devpts of the run's own on /dev/pts: its own ptys, no other "
			   "terminal of the machine" },
	[LAYER_SETID] = { "setid_files_refused",
			  "no setuid or setgid file can be made (chmod; on Linux also creation "
			  "modes)" },
	[LAYER_KEYRINGS] = { "keyrings_refused",
			     "a session keyring of its own; every keyring call refused" },
	[LAYER_UNIX_SUPERVISOR] = { "unix_socket_supervisor",
				    "pathname Unix sockets outside the writable set and "
				    "abstract names the run did not bind refused; cordon makes "
				    "each connect, send and abstract bind itself (seccomp user "
				    "notification)" },
	[LAYER_UNIX_LANDLOCK] = { "unix_socket_landlock",
				  "Landlock ABI 9: pathname Unix sockets outside the writable "
				  "set refused" },
	[LAYER_USERNS] = { "user_namespaces_refused",
			   "the command cannot make a user namespace (unshare, clone, clone3 "
			   "with CLONE_NEWUSER): the run's user namespace allows none below "
			   "it, or a seccomp rule refuses it" },
	[LAYER_IPCNS] = { "ipc_namespace",
			  "the run's own SysV IPC objects and POSIX message queues" },
	[LAYER_NETNS] = { "network_namespace",
			  "--network off: the run's own network namespace, only its loopback up" },
	[LAYER_NET_SECCOMP] = { "network_seccomp",
				"--network off: sockets of families that reach outside refused "
				"(without a network namespace every family but AF_UNIX; with one, "
				"those it does not isolate, such as AF_VSOCK); socketcall and "
				"io_uring refused" },
	[LAYER_NET_LANDLOCK] = { "network_landlock",
				 "--network off without a network namespace: Landlock ABI 4 refuses "
				 "every TCP bind and connect (ABI 10: UDP too)" },
	[LAYER_NET_SEATBELT] = { "network_seatbelt",
				 "macOS, --network off: the profile denies IP traffic both ways, "
				 "loopback included" },
	[LAYER_NET_PROXY] = { "network_proxy",
			      "--network allow: the only way out is cordon's proxy, listening "
			      "inside the run's network namespace (macOS: on loopback, with a "
			      "per-run credential), which checks each destination against the "
			      "allow-list and resolves and vets it itself" },
	[LAYER_REVIEW] = { "review",
			   "--review: the workspace is an overlay whose writes are held under the "
			   "state dir (review/RUN_ID), listed in the exit event, and land only "
			   "through cordon apply; the real workspace is unchanged" },
	[LAYER_PRIVATE_TMP] = { "private_tmp",
				"/tmp and /var/tmp are the run's own (its temp dir, bound there): "
				"writable, empty at the start, removed with the run; the machine's "
				"are not visible" },
	[LAYER_SCRATCH_HOME] = { "scratch_home",
				 "--scratch-home: writes under the home go to a layer of the run's own, "
				 "discarded at its end (an overlay); the caches, the workspace and "
				 "--allow-write paths in it stay the real ones, the secrets unreadable" },
	[LAYER_READ_DENY] = { "read_deny",
			      "the user's secrets (the default list and --deny-read) cannot be "
			      "read: empty mounts (Linux), the profile (macOS)" },
};

const struct id_text cordon_gap_ids[GAP_COUNT] = {
	[GAP_UNCONFINED] = { "unconfined", "nothing is restricted: confinement is not applied" },
	[GAP_TRUNCATE] = { "truncate_not_restricted",
			   "truncate(2) outside is not refused (Landlock ABI < 3, no mount layer)" },
	[GAP_DEVICE_IOCTL] = { "device_ioctl_not_restricted",
			       "ioctls on device files are not restricted" },
	[GAP_SIGNALS] = { "signals_not_scoped",
			  "the command may signal processes of the same user outside" },
	[GAP_METADATA] = { "metadata_outside_not_restricted",
			   "chmod, chown, utimes, xattrs outside the writable set are not refused" },
	[GAP_TERMINAL] = { "terminal_injection_not_blocked",
			   "the command may push keystrokes into the terminal it holds" },
	[GAP_UNIX_SOCKETS] = { "unix_socket_connect_not_restricted",
			       "connects to pathname Unix sockets outside are allowed" },
	[GAP_KEPT_FDS] = { "kept_fds_not_restricted",
			   "fds named by --keep-fd can be written wherever they point" },
	[GAP_PROTECT] = { "protected_paths_not_enforced", "a protected path is writable" },
	[GAP_READS] = { "reads_not_restricted", "reads are not restricted" },
	[GAP_NETWORK] = { "network_not_restricted", "the network is not restricted" },
	[GAP_PROCESSES] = { "other_processes_visible",
			    "the command can list the machine's processes and, at least on "
			    "Linux, read their command lines" },
	[GAP_SURVIVORS] = { "processes_may_outlive_run",
			    "a process that leaves the command's process group (setsid) "
			    "survives the run" },
	[GAP_ABSTRACT_SOCKETS] = { "abstract_unix_socket_connect_not_restricted",
				   "connects to abstract Unix sockets outside are allowed" },
	[GAP_SETID] = { "setid_files_not_refused",
			"the command may make setuid or setgid files where it may write" },
	[GAP_KEYRINGS] = { "keyrings_not_isolated",
			   "the caller's session keyring and the user's keyring are reachable" },
	[GAP_STDIO] = { "stdio_metadata_not_restricted",
			"a file outside on fd 1 or 2 (or on fd 0 one that cannot be opened again "
			"by its name): its mode, owner and times can be changed through the fd" },
	[GAP_SECRETS] = { "secrets_readable",
			  "some paths of the deny-read list (the user's secrets) are readable: "
			  "see read_denied (or ~/.config holds more than 4,096 entries, and "
			  "those past them were not looked in for auth.json)" },
	[GAP_INHERITED_SOCKET] = { "inherited_network_socket",
				   "--network off, but the command holds a network socket it was "
				   "given (fd 0-2 or --keep-fd): it reaches the network" },
	[GAP_BLOCK_DEVICES] = { "block_devices_readable",
				"a disk's block device is readable by the command (root, or the "
				"disk group) and not covered: the secrets can be read from it raw" },
	[GAP_CAPTURE_DEVICES] = { "capture_devices_readable",
				  "a device that reads what the user types, sees or hears (a "
				  "virtual console or its screen, keyboard and mouse events, a "
				  "framebuffer, raw HID, a camera, sound) is readable by the "
				  "command and not covered" },
	[GAP_GIT_SEARCH] = { "git_search_incomplete",
			     "the workspace is in no repository and holds more directories than "
			     "the git guard searches for repositories (4096), or directories it "
			     "cannot read: repositories below those in git_unsearched are not "
			     "guarded" },
	[GAP_KEY_LIST] = { "key_list_visible",
			   "/proc/keys and /proc/key-users are readable: the names, owners and "
			   "sizes (never the contents) of the keys the command may view, and "
			   "every user's key counts" },
	[GAP_LOOPBACK] = { "loopback_unavailable",
			   "--network off without a network namespace: loopback cannot be told "
			   "from the host's, so it is refused too (a test server on 127.0.0.1 "
			   "cannot be reached)" },
	[GAP_CAPABILITIES] = { "capabilities_not_reduced",
			       "the command keeps root's capabilities (those cordon holds): "
			       "capset is refused here; they reach past Landlock (loading a "
			       "kernel module, raw I/O, BPF, rebooting)" },
	[GAP_TMP_SHARED] = { "tmp_shared_read_only",
			     "/tmp and /var/tmp are the machine's, read-only: a program that "
			     "writes there by name (tmpfile(3), Lua's os.tmpname) fails; only "
			     "TMPDIR is the run's (no mount layer, or open_tree(2) refused)" },
	[GAP_TMP_TREE_FIFOS] = { "tmp_tree_fifos_writable",
				 "the run's home or working directory lies in /tmp (or "
				 "/var/tmp) outside the writable set and is shown read-only in "
				 "the run's private one, where Landlock's grant reaches it: a "
				 "FIFO there can be opened for writing and, at Landlock ABI 9 "
				 "and later, a Unix socket there connected to; every other "
				 "write there is refused (EROFS)" },
	[GAP_LIMIT] = { "resource_limit_not_enforced",
			"a --max-procs, --max-memory or --max-tmp bound is not applied here "
			"(\"by\": null in limits)" },
	[GAP_MEMORY_PER_PROCESS] = { "memory_limit_per_process",
				     "--max-memory bounds each process on its own (RLIMIT_DATA), "
				     "not the run: several processes may use it each" },
	[GAP_SCRATCH_HOME] = { "scratch_home_unavailable",
			       "--scratch-home was given, but no scratch layer can be made "
			       "on the home here: writes under it are refused, as without it" },
	[GAP_NETWORK_ALLOWLIST] = { "network_allowlist_not_enforced",
				    "--network allow was given, but no network namespace can be "
				    "made here: the command runs with the network off (nothing "
				    "allowed), never open" },
	[GAP_USERNS] = { "user_namespaces_allowed",
			 "the command can make user namespaces of its own (a common route "
			 "of kernel exploits): --allow-userns, or no mechanism here" },
	[GAP_AGENT_CONFIG_DEPTH] = { "agent_config_depth_partial",
				     "agent configuration a run makes below the held levels "
				     "(the workspace, each --allow-write directory, each "
				     "directory down to the working directory) is found only "
				     "where change times point (directories the workspace's "
				     "repositories track, directories the run made): one made "
				     "in an untracked directory that existed, or in an existing "
				     "directory below an --allow-write one, stays (as root on "
				     "Linux the kernel tells every place; the macOS profile "
				     "refuses them, but below a tree whose path it cannot write "
				     "as a pattern)" },
	[GAP_REVIEW] = { "review_not_held",
			 "--review was given, but the run's workspace changes cannot be held "
			 "aside here (no mount layer: Landlock alone, confinement unavailable, or "
			 "macOS): they land in the workspace at once, and cordon changes and "
			 "apply have nothing of this run" },
	[GAP_AGENT_CONFIG_MOVED_IN] = { "agent_config_moved_in_partial",
					"the Seatbelt profile refuses to make or change agent "
					"configuration at any depth of the workspace and each "
					"--allow-write directory, but not to move in whole a "
					"directory that holds some already (made in the run's "
					"temp dir or a cache): that is found only where change "
					"times point (directories git tracks)" },
	[GAP_IPC] = { "ipc_not_isolated",
		      "the user's SysV IPC objects and POSIX message queues (macOS: POSIX "
		      "shared memory and semaphores) are reachable" },
};

const struct id_text cordon_cache_tool_ids[CACHE_TOOL_COUNT] = {
	[CACHE_CARGO] = { "cargo", "cargo's registry, git checkouts and package-cache lock" },
	[CACHE_NPM] = { "npm", "npm's cache" },
	[CACHE_PIP] = { "pip", "pip's cache" },
	[CACHE_PLAYWRIGHT] = { "playwright", "Playwright's browsers" },
	[CACHE_GO] = { "go", "Go's build cache, module cache and checksum database cache" },
	[CACHE_YARN] = { "yarn", "Yarn's cache (classic) and global folder (Berry)" },
	[CACHE_PNPM] = { "pnpm", "pnpm's content-addressed store and metadata cache" },
	[CACHE_BUN] = { "bun", "Bun's package cache" },
	[CACHE_DENO] = { "deno", "Deno's module and npm cache (DENO_DIR)" },
	[CACHE_GRADLE] = { "gradle",
			   "Gradle's caches, wrapper distributions, daemon and native files" },
	[CACHE_MAVEN] = { "maven", "Maven's local repository and wrapper distributions" },
	[CACHE_COMPOSER] = { "composer", "Composer's cache" },
	[CACHE_GEM] = { "gem", "Bundler's cache and RubyGems' spec cache" },
	[CACHE_CCACHE] = { "ccache", "ccache's compiler output cache" },
	[CACHE_SCCACHE] = { "sccache", "sccache's local compiler output cache" },
	[CACHE_HUGGINGFACE] = { "huggingface",
				"the Hugging Face hub's model and dataset caches (not its token)" },
};

const struct id_text cordon_cache_state_ids[CACHE_STATE_COUNT] = {
	[CACHE_EXISTING] = { "existing", "it was there and is writable" },
	[CACHE_CREATED] = { "created", "it was created for this run and is writable" },
	[CACHE_REFUSED] = { "refused", "it is /, the home or an ancestor of it: not granted" },
	[CACHE_UNAVAILABLE] = { "unavailable", "it could not be made: not granted" },
	[CACHE_INSIDE] = { "inside", "it lies in a writable tree already: no grant of its own" },
	[CACHE_REDIRECTED] = { "redirected",
			       "a symlink inside a writable tree leads it elsewhere (a previous "
			       "run may have planted it): not granted" },
	[CACHE_MISSING] = { "missing",
			    "it does not exist, and cordon makes no cache in the home outside the "
			    "tool's own directory, and no variable of the tool moves it: not "
			    "granted" },
	[CACHE_READ_ONLY] = { "not_isolated",
			      "it exists, no mount layer can show it to the run through an overlay, "
			      "and no variable of the tool moves it alone: left read-only, so that "
			      "no write reaches the user's own cache" },
};

const struct id_text cordon_cache_how_ids[CACHE_HOW_COUNT] = {
	[CACHE_OVERLAY] = { "overlay",
			    "the run reads the user's cache and cordon's layer above it; its writes "
			    "go to a directory of its own, merged into cordon's layer at its end" },
	[CACHE_MOVED] = { "moved",
			  "the tool is pointed at cordon's own directory under the state dir by "
			  "its variable; the user's cache is not used" },
	[CACHE_DIRECT] = { "direct",
			   "writes reach the path itself (a lock file; or a tree the run may "
			   "write anyway: the workspace, an --allow-write path)" },
};

const struct id_text cordon_limit_by_ids[LIMIT_BY_COUNT] = {
	[LIMIT_BY_NONE] = { NULL, "the bound is not applied" },
	[LIMIT_BY_CGROUP] = { "cgroup", "the run's own cgroup: every process of the run together" },
	[LIMIT_BY_RLIMIT] = { "rlimit",
			      "RLIMIT_NPROC, which the kernel counts per user namespace: the "
			      "run's processes together" },
	[LIMIT_BY_RLIMIT_DATA] = { "rlimit_data",
				   "RLIMIT_DATA: each process's private writable memory on its own" },
	[LIMIT_BY_TMPFS] = { "tmpfs", "the run's temp dir is a tmpfs of that size" },
};

const struct id_text cordon_refusal_ids[REFUSAL_COUNT] = {
	[REFUSAL_WRITE] = { "write", "a write outside the writable set is refused" },
	[REFUSAL_READ] = { "read",
			   "a path of the deny-read list (the user's secrets) is unreadable" },
	[REFUSAL_NETWORK] = { "network",
			      "--network off: no IP traffic leaves the command's world" },
	[REFUSAL_UNIX_SOCKET] = { "unix_socket",
				  "a Unix socket outside the writable set and --allow-socket is "
				  "refused" },
	[REFUSAL_ENV] = { "env",
			  "variables of the default secret list were kept from the environment" },
	[REFUSAL_LIMIT] = { "limit",
			    "a resource bound (--max-procs, --max-memory, --max-tmp) holds" },
};

const struct id_text cordon_cwd_from_ids[CWD_FROM_COUNT] = {
	[CWD_FROM_OPTION] = { "option", "the directory given with --cwd (cordon_set_cwd)" },
	[CWD_FROM_CURRENT] = { "current",
			       "the caller's current directory, which lies in the workspace" },
	[CWD_FROM_WORKSPACE] = { "workspace",
				 "the workspace: the caller's current directory lies outside it" },
};

const struct id_text cordon_held_ids[HELD_COUNT] = {
	[HELD_NONE] = { NULL, "not held: the path is writable in this run" },
	[HELD_READ_ONLY] = { "read_only",
			     "it exists and is read-only while the run lasts (the mount layer, or "
			     "the Seatbelt profile)" },
	[HELD_CREATION_REFUSED] = { "creation_refused",
				    "it does not exist, and the Seatbelt profile refuses to make "
				    "it (or anything under it)" },
	[HELD_CHECKED_AT_END] = { "checked_at_end",
				  "it exists and is writable while the run lasts; at the end "
				  "what the run made or changed there is moved aside and what it "
				  "held at the start is put back" },
	[HELD_CHECKED_IN_PART] = { "checked_in_part",
				   "as checked_at_end, for the entries the start could record "
				   "(a bound): entries past them are not compared" },
	[HELD_MOVED_AT_END] = { "moved_at_end",
				"it does not exist; whatever the run made there is moved aside at "
				"the end" },
};

_Static_assert(CORDON_CACHE_CARGO == 1u << CACHE_CARGO && CORDON_CACHE_NPM == 1u << CACHE_NPM &&
		       CORDON_CACHE_PIP == 1u << CACHE_PIP &&
		       CORDON_CACHE_PLAYWRIGHT == 1u << CACHE_PLAYWRIGHT &&
		       CORDON_CACHE_GO == 1u << CACHE_GO && CORDON_CACHE_YARN == 1u << CACHE_YARN &&
		       CORDON_CACHE_PNPM == 1u << CACHE_PNPM &&
		       CORDON_CACHE_BUN == 1u << CACHE_BUN &&
		       CORDON_CACHE_DENO == 1u << CACHE_DENO &&
		       CORDON_CACHE_GRADLE == 1u << CACHE_GRADLE &&
		       CORDON_CACHE_MAVEN == 1u << CACHE_MAVEN &&
		       CORDON_CACHE_COMPOSER == 1u << CACHE_COMPOSER &&
		       CORDON_CACHE_GEM == 1u << CACHE_GEM &&
		       CORDON_CACHE_CCACHE == 1u << CACHE_CCACHE &&
		       CORDON_CACHE_SCCACHE == 1u << CACHE_SCCACHE &&
		       CORDON_CACHE_HUGGINGFACE == 1u << CACHE_HUGGINGFACE &&
		       CORDON_CACHE_ALL == (1u << CACHE_TOOL_COUNT) - 1u,
	       "CORDON_CACHE_* bit i is cache tool i");

const char *reason_name(enum reason_id r)
{
	return r > REASON_NONE && r < REASON_COUNT ? cordon_reason_ids[r].id : NULL;
}

enum cache_tool cache_tool_of_bit(unsigned bit)
{
	/* CORDON_CACHE_* bit i is cache tool i; not one known bit: cargo. */
	for (unsigned i = 0; i < CACHE_TOOL_COUNT; i++)
		if (bit == 1u << i)
			return (enum cache_tool)i;
	return CACHE_CARGO;
}

/* ---- the public list and texts ---- */

static const struct {
	const struct id_text *t;
	size_t n;
} tables[] = {
	{ cordon_event_ids, EVENT_COUNT },
	{ cordon_mode_ids, 3 },
	{ cordon_backend_ids, BACKEND_COUNT },
	{ cordon_reason_ids, REASON_COUNT },
	{ cordon_layer_ids, LAYER_COUNT },
	{ cordon_gap_ids, GAP_COUNT },
	{ cordon_cache_tool_ids, CACHE_TOOL_COUNT },
	{ cordon_cache_state_ids, CACHE_STATE_COUNT },
	{ cordon_cache_how_ids, CACHE_HOW_COUNT },
	{ cordon_network_ids, 3 },
	{ cordon_net_decision_ids, NET_DECISION_COUNT },
	{ cordon_net_reason_ids, sizeof(cordon_net_reason_ids) / sizeof(cordon_net_reason_ids[0]) },
	{ cordon_limit_by_ids, LIMIT_BY_COUNT },
	{ cordon_refusal_ids, REFUSAL_COUNT },
	{ cordon_cwd_from_ids, CWD_FROM_COUNT },
	{ cordon_held_ids, HELD_COUNT },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

/* Every identifier once, in table order, NULL-terminated. "landlock" is
 * both a backend and a layer (as "seatbelt" is): listed once. */
static const char
	*all_ids[EVENT_COUNT + 3 + BACKEND_COUNT + REASON_COUNT + LAYER_COUNT + GAP_COUNT +
		 CACHE_TOOL_COUNT + CACHE_STATE_COUNT + CACHE_HOW_COUNT + 3 + NET_DECISION_COUNT +
		 sizeof(cordon_net_reason_ids) / sizeof(cordon_net_reason_ids[0]) + LIMIT_BY_COUNT +
		 REFUSAL_COUNT + CWD_FROM_COUNT + HELD_COUNT + 1];

static void fill_ids(void)
{
	size_t k = 0;
	for (size_t t = 0; t < NTABLES; t++)
		for (size_t i = 0; i < tables[t].n; i++) {
			const char *id = tables[t].t[i].id;
			int seen = id == NULL;
			for (size_t j = 0; !seen && j < k; j++)
				seen = strcmp(all_ids[j], id) == 0;
			if (!seen)
				all_ids[k++] = id;
		}
	all_ids[k] = NULL;
}

const char *const *cordon_identifiers(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	(void)pthread_once(&once, fill_ids);
	return all_ids;
}

const char *cordon_reason_text(const char *id)
{
	for (size_t i = 1; id != NULL && i < REASON_COUNT; i++)
		if (strcmp(cordon_reason_ids[i].id, id) == 0)
			return cordon_reason_ids[i].text;
	return "confinement is unavailable";
}
