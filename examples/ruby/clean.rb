# A tiny stack with a size limit.
class Stack
  def initialize(limit = 10)
    @items = []
    @limit = limit
  end

  def push(item)
    raise "stack full" if @items.size >= @limit
    @items.push(item)
    self
  end

  def pop
    @items.pop
  end
end

stack = Stack.new(3)
stack.push(1).push(2)
puts stack.pop
