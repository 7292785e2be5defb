// DOM helpers shared by the console's scripts.

export const $ = (id) => document.getElementById(id);

/** An element with attributes (`text` sets its text; false or undefined leaves one out). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) node.append(child);
  return node;
}
