// Debounce a function: run it only after `wait` ms without new calls.
function debounce(fn, wait) {
  let timer = null;
  return function (...args) {
    clearTimeout(timer);
    timer = setTimeout(() => fn.apply(this, args, wait);
  };
}

const log = debounce((message) => {
  console.log(`saved: ${message}`);
}, 200);

for (const word of ["a", "b", "c"]) {
  log(word);
}

module.exports = { debounce };
