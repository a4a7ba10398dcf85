// The replay's stepper from the keyboard: Left/Right arrows step back and forward, Home and
// End go to the first and last step (outside form fields). The links work without it.
document.addEventListener("keydown", function (event) {
  var target = event.target;
  if (event.altKey || event.ctrlKey || event.metaKey || (target && target.closest && target.closest("input, select, textarea"))) {
    return;
  }
  var which = {ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last"}[event.key];
  var link = which && document.querySelector('#step a[data-step="' + which + '"]');
  if (link) {
    event.preventDefault();
    link.click();
  }
});
