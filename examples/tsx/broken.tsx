import React, { useState } from "react";

type Props = { initial?: number; step?: number };

export function Counter({ initial = 0, step = 1 }: Props) {
  const [count, setCount] = useState(initial);
  return (
    <div className="counter">
      <button onClick={() => setCount(count - step)}>-</button>
      <span>{count}</span
      <button onClick={() => setCount(count + step)}>+</button>
    </div>
  );
}
