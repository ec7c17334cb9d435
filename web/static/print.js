/* The score sheet's print button (no inline script: the pages' policy forbids it). */
"use strict";
document.getElementById("print").addEventListener("click", () => window.print());
