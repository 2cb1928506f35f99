/**
 * The widget's style sheet and the account colour's contrast (WCAG 2.2 AA, issue 48): white text on the
 * account's colour needs 4.5:1, so a lighter colour is darkened until it has it.
 */

/** Relative luminance of `#rrggbb` (WCAG 2.2, "relative luminance"). */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** Contrast ratio of white on `hex`. */
const onWhite = (hex: string) => 1.05 / (luminance(hex) + 0.05);

/**
 * `color` (`#rgb` or `#rrggbb`) as a background for white text: itself when white on it reaches 4.5:1, else
 * darkened step by step until it does. Anything else gives the widget's default blue.
 */
export function accessibleColor(color: string): string {
  let hex = /^#[0-9a-f]{3}$/i.test(color) ? `#${[...color.slice(1)].map((c) => c + c).join('')}` : color;
  if (!/^#[0-9a-f]{6}$/i.test(hex)) return '#1f5fbf';
  while (onWhite(hex) < 4.5) {
    hex = `#${[1, 3, 5]
      .map((i) =>
        Math.floor(parseInt(hex.slice(i, i + 2), 16) * 0.9)
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')}`;
  }
  return hex;
}

export const CSS = `
:host { all: initial; }
.root { position: fixed; bottom: 20px; z-index: 2147483000; font: 14px/1.4 system-ui, sans-serif; color: #1d2129; display: flex; flex-direction: column-reverse; }
.root.right { right: 20px; align-items: flex-end; } .root.left { left: 20px; align-items: flex-start; }
svg { width: 26px; height: 26px; fill: currentColor; display: block; margin: auto; }
:focus-visible { outline: 3px solid #1a56db; outline-offset: 2px; }
.launcher { position: relative; width: 56px; height: 56px; border-radius: 50%; border: 0; color: #fff; cursor: pointer; box-shadow: 0 4px 12px rgba(0,0,0,.25); }
.badge { position: absolute; top: -4px; right: -4px; min-width: 20px; height: 20px; padding: 0 5px; box-sizing: border-box; border-radius: 10px; background: #b3261e; color: #fff; font: 600 12px/20px system-ui, sans-serif; }
.badge[hidden] { display: none; }
.panel { display: none; flex-direction: column; width: 360px; height: 520px; max-height: calc(100vh - 100px); margin-bottom: 12px; background: #fff; border-radius: 12px; box-shadow: 0 8px 28px rgba(0,0,0,.25); overflow: hidden; }
.open .panel { display: flex; }
.header { display: flex; align-items: center; gap: 8px; padding: 12px 12px 12px 16px; color: #fff; }
.header .titles { flex: 1; min-width: 0; }
.header h2 { margin: 0; font-weight: 600; font-size: 16px; }
.header .hours { font-size: 12px; }
.header button { border: 0; background: none; color: inherit; cursor: pointer; padding: 4px; border-radius: 6px; }
.header button svg { width: 22px; height: 22px; }
.body { flex: 1; overflow-y: auto; padding: 12px; background: #f5f6f8; display: flex; flex-direction: column; gap: 6px; }
.msg { max-width: 80%; padding: 8px 10px; border-radius: 10px; white-space: pre-wrap; word-wrap: break-word; margin: 0; }
.msg.agent, .msg.note { align-self: flex-start; background: #fff; border: 1px solid #e3e5e8; }
.msg.note { color: #4a4f57; font-style: italic; }
.msg.visitor { align-self: flex-end; color: #fff; }
.msg.failed { outline: 2px solid #b3261e; }
.msg img { max-width: 100%; max-height: 240px; border-radius: 6px; display: block; }
.msg a { color: inherit; }
.msg progress { display: block; width: 100%; margin-top: 4px; }
.who { display: block; font-size: 12px; font-weight: 600; color: #4a4f57; }
.meta { display: block; font-size: 11px; margin-top: 2px; text-align: right; }
.msg.agent .meta { color: #5f6368; }
.meta button { border: 0; background: #fff; color: #b3261e; font: 600 12px system-ui, sans-serif; border-radius: 6px; padding: 2px 8px; margin-left: 6px; cursor: pointer; }
.typing { font-size: 12px; color: #4a4f57; min-height: 16px; padding: 0 12px; background: #f5f6f8; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
form.composer { display: flex; gap: 6px; padding: 8px; border-top: 1px solid #e3e5e8; align-items: flex-end; }
form.prechat { display: flex; flex-direction: column; gap: 4px; padding: 4px 0; }
form.prechat label { font-size: 13px; font-weight: 600; margin-top: 6px; }
input, textarea { font: inherit; font-size: 16px; padding: 8px; border: 1px solid #767b82; border-radius: 8px; color: #1d2129; background: #fff; }
textarea { flex: 1; resize: none; height: 40px; box-sizing: border-box; }
button.send, button.start { border: 0; border-radius: 8px; color: #fff; padding: 0 14px; height: 40px; cursor: pointer; font: inherit; }
button.start { margin-top: 10px; }
button.attach { border: 0; background: none; cursor: pointer; color: #4a4f57; padding: 0; width: 36px; height: 40px; }
button.attach svg { width: 22px; height: 22px; }
.error { color: #b3261e; font-size: 13px; padding: 0 12px; background: #fff; }
.error:empty { display: none; }
@media (max-width: 480px) {
  .root.open { top: 0; right: 0; bottom: 0; left: 0; }
  .open .panel { width: 100%; height: 100%; max-height: none; margin: 0; border-radius: 0; box-shadow: none; }
  .open .launcher { display: none; }
}
`;
