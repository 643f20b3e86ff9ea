// desktop.go holds Desktop, the Notifier that uses beeep and the session D-Bus.

package notify

import (
	"fmt"

	"github.com/gen2brain/beeep"
	"github.com/godbus/dbus/v5"
)

// Desktop shows notifications with beeep: Notify for normal ones, Alert for
// critical ones. beeep's Alert also rings the bell, which writes a BEL to
// standard output where no speaker exists; with Bell false (always when a
// TUI owns the terminal) critical notifications go straight to the session
// bus with critical urgency and no bell.
type Desktop struct {
	Bell bool
}

// NewDesktop returns a Desktop notifier. It sets beeep's application name,
// which beeep keeps in a package variable, to AppName.
func NewDesktop(bell bool) *Desktop {
	beeep.AppName = AppName
	return &Desktop{Bell: bell}
}

// Notify implements Notifier.
func (d *Desktop) Notify(title, body string) error {
	return beeep.Notify(title, body, "")
}

// Alert implements Notifier.
func (d *Desktop) Alert(title, body string) error {
	if d.Bell {
		return beeep.Alert(title, body, "")
	}
	conn, err := dbus.SessionBus()
	if err != nil {
		return fmt.Errorf("session bus: %w", err)
	}
	obj := conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(byte(2))}
	call := obj.Call("org.freedesktop.Notifications.Notify", 0, AppName, uint32(0), "", title, body, []string{}, hints, int32(-1))
	if call.Err != nil {
		return fmt.Errorf("org.freedesktop.Notifications.Notify: %w", call.Err)
	}
	return nil
}
