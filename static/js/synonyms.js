/* The list page's synonym switches: a sense switched off greys its synonyms at once.
   The form works without this script; it only shows the effect before saving. */
(function () {
  "use strict";
  document.querySelectorAll('input[data-role="sense"]').forEach(function (box) {
    box.addEventListener("change", function () {
      var sense = box.closest("li.sense");
      if (sense) sense.classList.toggle("off", !box.checked);
    });
  });
})();
