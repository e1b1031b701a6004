using System;
using System.Collections.Generic;
using System.Linq;

namespace Tiny
{
    public static class Stats
    {
        public static double Mean(IEnumerable<double> values)
        {
            var list = values.ToList();
            if (list.Count == 0)
            {
                throw new ArgumentException("no values");
            }
            return list.Sum() / list.Count;
        }

        public static void Main()
        {
            Console.WriteLine(Mean(new[] { 1.0, 2.0, 4.5 }));
        }
    }
}
