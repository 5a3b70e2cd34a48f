// The dashboard's one script: it shows the copy buttons a page renders hidden and copies the text of
// the element each names. Without it (scripts off, an old browser) the buttons stay hidden and the
// text stays selectable, so no page depends on it. Served from our own origin, as the CSP requires.

export const COPY_SCRIPT_PATH = "/dashboard/copy.js";

export const COPY_SCRIPT = `for (const button of document.querySelectorAll("button[data-copy]")) {
  const label = button.textContent;
  button.hidden = false;
  button.addEventListener("click", async () => {
    const text = document.getElementById(button.dataset.copy)?.textContent ?? "";
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Select the text to copy it";
    }
    setTimeout(() => { button.textContent = label; }, 4000);
  });
}
`;
