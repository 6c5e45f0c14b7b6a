// Every figure links to its image at full size: on a phone the page scales figures to the column (about
// 340 px), where tick labels and legends are too small to read.
document.addEventListener("DOMContentLoaded", () => {
  for (const img of document.querySelectorAll("figure img, .cell_output img")) {
    if (img.closest("a")) continue;
    const link = document.createElement("a");
    link.href = img.src;
    link.className = "graphrepro-full-size";
    link.title = "Open the figure at full size";
    img.replaceWith(link);
    link.appendChild(img);
  }
});
