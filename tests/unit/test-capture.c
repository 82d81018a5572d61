/* Which names directly under /dev are capture devices
 * (secrets_capture_name, src/core/secrets.c): the virtual consoles and their
 * screens, framebuffers, cameras, raw HID, OSS sound and the consoles
 * systemd starts a login on (hvc, hvsi, xvc, sclp); not the
 * terminals a command is given, nor the devices every command uses. */
#include "handle.h"
#include "tap.h"

int main(void)
{
	static const char *const yes[] = {
		"tty0",	  "tty1",	"tty63",    "console",	 "vcs",	    "vcs1",    "vcsa",
		"vcsa12", "vcsu",	"vcsu3",    "fb0",	 "video0",  "video17", "hidraw0",
		"dsp",	  "dsp1",	"audio",    "audio2",	 "hvc0",    "hvc7",    "hvsi0",
		"xvc0",	  "sclp_line0", "ttysclp0", "usbmon0",	 "hiddev0", "adsp",    "midi",
		"midi00", "dmmidi",	"lirc0",    "v4l-touch0"
	};
	static const char *const no[] = { "tty",	"ttyS0",  "ttyUSB0", "ttyprintk", "pts",
					  "ptmx",	"null",	  "zero",    "full",	  "random",
					  "vcs1a",	"fb",	  "fbx",     "video",	  "videox1",
					  "hidraw",	"dspx",	  "audiox",  "console1",  "sda",
					  "loop0",	"stdin",  "tty1a",   "hvc",	  "xvc",
					  "sclp_line1", "usbmon", "lirc",    "v4l-touch", "" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		ok(secrets_capture_name(yes[i]), "/dev/%s is a capture device", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ok(!secrets_capture_name(no[i]), "/dev/%s is not", no[i]);
	return done_testing();
}
